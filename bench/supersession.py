"""Supersession: does recall ever hand back a stale fact without its replacement?

Our own fixtures: pairs of a stale fact and the fact that replaced it, across varied
domains. Each pair is saved twice, in two product scopes: once with the new fact saved
with `supersedes=[old]` (edges), once with both saved side by side (`force`, no edges).
Then each pair's question is asked in the stale fact's own words (the hardest case: the
stale fact is the best lexical and semantic match) with max_results 1..3, several times.

Reported: the fraction of recalls returning a superseded fact without its successor
(target 0 with edges), and recall latency p50/p95 with and without edges.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from memhive_client import AsyncMemhiveClient

from bench.running_stack import RunningStack, running_stack

# (subject, old value, new value): "<subject> uses <old>" -> "<subject> now uses <new>".
PAIRS = [
    ("The iOS app", "Swift 5", "Swift 6"),
    ("The Android app", "Java 11", "Kotlin 2.0"),
    ("The billing service", "PostgreSQL 14", "PostgreSQL 16"),
    ("The search cluster", "Elasticsearch 7", "OpenSearch 2"),
    ("The web frontend", "React 17", "React 19"),
    ("The data pipeline", "Airflow 1.10", "Dagster"),
    ("The CI system", "Jenkins", "GitHub Actions"),
    ("The API gateway", "nginx", "Envoy"),
    ("The message bus", "RabbitMQ", "NATS JetStream"),
    ("The ML training jobs", "TensorFlow 1", "PyTorch 2"),
    ("The container runtime", "Docker Swarm", "Kubernetes 1.30"),
    ("The monitoring stack", "Nagios", "Prometheus and Grafana"),
    ("The logging pipeline", "Logstash", "Vector"),
    ("The auth service", "session cookies", "OAuth 2 with PKCE"),
    ("The mobile analytics", "Firebase Analytics", "PostHog"),
    ("The payments provider", "Braintree", "Stripe"),
    ("The email delivery", "SendGrid", "Amazon SES"),
    ("The feature flags", "LaunchDarkly", "Unleash"),
    ("The build tool for the backend", "Maven", "Gradle"),
    ("The Python packaging", "pip and requirements files", "uv workspaces"),
    ("The secrets storage", "environment files", "HashiCorp Vault"),
    ("The DNS provider", "GoDaddy", "Cloudflare"),
    ("The object storage", "a self-hosted MinIO", "Amazon S3"),
    ("The cache layer", "Memcached", "Redis 7"),
    ("The error tracking", "Rollbar", "Sentry"),
    ("The documentation site", "Sphinx", "MkDocs Material"),
    ("The design system", "Bootstrap 4", "Tailwind CSS"),
    ("The on-call rotation", "a weekly schedule", "a follow-the-sun schedule"),
    ("The release cadence", "monthly releases", "weekly releases"),
    ("The code review policy", "one approval", "two approvals"),
    ("The staging database", "MySQL 5.7", "MySQL 8.0"),
    ("The desktop app", "Electron", "Tauri"),
    ("The backend language", "Node.js 16", "Go 1.22"),
    ("The load balancer", "HAProxy", "AWS ALB"),
    ("The data warehouse", "Redshift", "Snowflake"),
    ("The notebook environment", "Jupyter on laptops", "a shared JupyterHub"),
    ("The video transcoding", "FFmpeg on EC2", "AWS MediaConvert"),
    ("The customer support tool", "Zendesk", "Intercom"),
    ("The team chat", "HipChat", "Slack"),
    ("The issue tracker", "Jira", "Linear"),
    ("The vector database", "FAISS files", "Qdrant"),
    ("The test runner for the web app", "Karma", "Vitest"),
    ("The office wifi", "WPA2", "WPA3 Enterprise"),
    ("The VPN", "OpenVPN", "WireGuard"),
]
MAX_RESULTS = (1, 2, 3)
REPEATS = 3
EDGES, PLAIN = "with-edges", "no-edges"


def old_body(subject: str, old: str) -> str:
    return f"{subject} uses {old}"


def new_body(subject: str, new: str) -> str:
    return f"{subject} now uses {new} instead"


async def save(client: AsyncMemhiveClient, body: str, product: str, **extra) -> str:
    return (await client.save("fact", body, product_id=product, wait="indexed", **extra)).id


async def load(client: AsyncMemhiveClient) -> dict[str, dict[str, str]]:
    """Per mode: stale id -> its successor's id."""
    successors: dict[str, dict[str, str]] = {EDGES: {}, PLAIN: {}}
    for subject, old, new in PAIRS:
        for mode in (EDGES, PLAIN):
            # force: pairs about different subjects may look alike; this set is deliberate.
            stale = await save(client, old_body(subject, old), mode, force=True)
            link = {"supersedes": [stale]} if mode == EDGES else {"force": True}
            successors[mode][stale] = await save(client, new_body(subject, new), mode, **link)
    return successors


async def measure(
    client: AsyncMemhiveClient, mode: str, successors: dict[str, str]
) -> dict[str, float]:
    stale_alone, recalls, latencies = 0, 0, []
    for _ in range(REPEATS):
        for subject, old, _new in PAIRS:
            for limit in MAX_RESULTS:
                query = old_body(subject, old)
                began = time.perf_counter()
                hits = await client.recall(query, product_id=mode, max_results=limit)
                latencies.append((time.perf_counter() - began) * 1000)
                ids = {hit.id for hit in hits}
                recalls += 1
                stale_alone += any(i in successors and successors[i] not in ids for i in ids)
    ordered = sorted(latencies)
    return {
        "recalls": recalls,
        "stale_alone": stale_alone / recalls,
        "p50": statistics.median(ordered),
        "p95": ordered[int(0.95 * (len(ordered) - 1))],
    }


async def run(stack: RunningStack) -> str:
    async with stack.client() as client:
        successors = await load(client)
        for mode in (EDGES, PLAIN):  # warm the model and both lanes before timing
            await measure_warmup(client, mode)
        results = {mode: await measure(client, mode, successors[mode]) for mode in (EDGES, PLAIN)}
    return render(results)


async def measure_warmup(client: AsyncMemhiveClient, mode: str) -> None:
    for subject, old, _new in PAIRS[:5]:
        await client.recall(old_body(subject, old), product_id=mode)


def render(results: dict[str, dict[str, float]]) -> str:
    rows = [
        "| recall over | recalls | stale fact without its successor | p50 ms | p95 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for mode, label in ((EDGES, "`updates` edges (saved with supersedes)"), (PLAIN, "no edges")):
        r = results[mode]
        rows.append(
            f"| {label} | {r['recalls']} | {r['stale_alone']:.3f} | {r['p50']:.1f} | {r['p95']:.1f} |"
        )
    return (
        f"{len(PAIRS)} stale/new fact pairs of our own, each question asked in the stale fact's "
        f"words with max_results {MAX_RESULTS[0]}..{MAX_RESULTS[-1]}, {REPEATS} times; "
        "the same pairs saved twice, with and without edges, in separate scopes. "
        "Target: 0 stale facts without their successor.\n\n" + "\n".join(rows)
    )


def main() -> None:
    with running_stack() as stack:
        print(asyncio.run(run(stack)))


if __name__ == "__main__":
    main()
