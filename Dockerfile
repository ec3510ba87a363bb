# One image for every memhive service; the command picks the service (`memhive serve <name>`).
FROM python:3.11-slim
WORKDIR /app
RUN pip install --no-cache-dir uv==0.13.9
COPY pyproject.toml uv.lock ./
COPY libs libs
COPY services services
COPY clients clients
COPY src src
RUN uv sync --frozen --all-packages --no-dev --no-editable
ENV PATH=/app/.venv/bin:$PATH HF_HUB_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True \
    MEMHIVE_NATS__EMBEDDED=false MEMHIVE_HTTP_HOST=0.0.0.0
ENTRYPOINT ["memhive"]
CMD ["serve", "query"]
