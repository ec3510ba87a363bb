"""Knowing when nothing matches: a store of our own, questions it answers and questions
it does not, asked through the REST API.

    python -m bench.unanswerable

28 memories of a made-up product team (decisions, facts, procedures, events). 14 answerable
questions, each with the memory that answers it (worded differently from it), and 14
questions with no answer in the store: 7 off-topic (nothing about the subject at all) and
7 near misses (the team's own subjects, asking for something never saved). Reported: the
best result's confidence per question, and for each min_confidence how many answerable
questions still get their memory back and how many unanswerable ones get nothing.
"""

from __future__ import annotations

import asyncio

from memhive_client import AsyncMemhiveClient

from bench.running_stack import RunningStack

PRODUCT = "unanswerable-fixture"
MEMORIES = {
    "db": ("decision", "We chose PostgreSQL 16 for the billing service; MySQL was ruled out."),
    "deploy": ("procedure", "Deploys go out on Tuesdays and Thursdays after the 10:00 standup."),
    "oncall": ("fact", "Priya owns the on-call rotation and publishes it every Monday."),
    "ios": ("decision", "The iOS app moved from CocoaPods to Swift Package Manager."),
    "flags": ("fact", "Feature flags live in LaunchDarkly; stale flags are removed monthly."),
    "auth": ("decision", "Sign-in uses OIDC with Keycloak; passwords are never stored by us."),
    "ci": ("fact", "CI runs on GitHub Actions; a full pipeline takes about 14 minutes."),
    "outage": ("event", "The 3 March outage came from an expired TLS certificate on the API."),
    "style": ("preference", "Python code is formatted with ruff and type-checked with mypy."),
    "queue": ("decision", "Background jobs moved from Celery to NATS JetStream consumers."),
    "retro": ("event", "The Q1 retrospective asked for smaller pull requests."),
    "search": ("fact", "Product search is served by OpenSearch with a custom synonym list."),
    "mobile": ("fact", "Android builds are signed in CI with a key kept in Vault."),
    "pricing": ("decision", "The Pro plan costs 12 euros per seat per month from April."),
    "backup": ("procedure", "Database backups run nightly at 02:00 and are kept for 35 days."),
    "logs": ("fact", "Logs are shipped to Loki and kept for 14 days."),
    "hire": ("event", "Tomás joined the platform team as a site reliability engineer."),
    "api": ("decision", "Public API versions are supported for 18 months after a successor."),
    "cache": ("fact", "Redis caches session data with a 30 minute expiry."),
    "design": ("preference", "The design team prefers Figma over Sketch for all new screens."),
    "release": ("procedure", "Mobile releases need QA sign-off and a staged rollout at 10%."),
    "metrics": ("fact", "Service metrics are scraped by Prometheus every 15 seconds."),
    "cost": ("event", "Cloud spend rose 18% in February because of idle GPU nodes."),
    "docs": ("fact", "Internal documentation lives in the handbook repository, in Markdown."),
    "support": ("procedure", "Support tickets tagged urgent page the on-call engineer."),
    "gdpr": ("decision", "Customer data of EU accounts stays in the Frankfurt region."),
    "tests": ("fact", "End-to-end tests use Playwright against a staging copy."),
    "coffee": ("event", "The office espresso machine was replaced after it leaked again."),
}
ANSWERABLE = {
    "Which database does billing use?": "db",
    "On which days do we ship deploys?": "deploy",
    "Who is in charge of the on-call schedule?": "oncall",
    "How are iOS dependencies managed now?": "ios",
    "What caused the outage in March?": "outage",
    "What replaced Celery for background work?": "queue",
    "How long are backups retained?": "backup",
    "How much does the Pro plan cost?": "pricing",
    "Where are logs sent and for how long?": "logs",
    "Who joined the platform team?": "hire",
    "How often does Prometheus scrape metrics?": "metrics",
    "Why did cloud costs go up in February?": "cost",
    "Where is EU customer data stored?": "gdpr",
    "What tool runs the end-to-end tests?": "tests",
}
OFF_TOPIC = [
    "What is the capital of France?",
    "How many moons does Jupiter have?",
    "Who wrote Pride and Prejudice?",
    "What is a good recipe for banana bread?",
    "When did the Roman Empire fall?",
    "How tall is Mount Everest?",
    "Which team won the 1998 football World Cup?",
]
NEAR_MISS = [
    "Which message broker does the analytics pipeline use?",
    "Who approved the switch to Kubernetes?",
    "What is our SLA for enterprise customers?",
    "How do we rotate the AWS access keys?",
    "What font does the marketing website use?",
    "When is the next company offsite?",
    "Which payment provider handles refunds?",
]
FLOORS = (0.0, 0.005, 0.01, 0.02, 0.03, 0.05)


async def load(client: AsyncMemhiveClient) -> dict[str, str]:
    ids = {}
    for key, (kind, body) in MEMORIES.items():
        saved = await client.save(kind, body, wait="indexed", product_id=PRODUCT, force=True)
        ids[key] = saved.id
    return ids


async def top_results(client: AsyncMemhiveClient, question: str) -> list[tuple[str, float]]:
    hits = await client.recall(question, product_id=PRODUCT, max_results=6, min_confidence=0)
    return [(h.id, h.confidence) for h in hits]


async def run_fixture(stack: RunningStack) -> dict:
    async with AsyncMemhiveClient(stack.url, stack.token, timeout_s=60) as client:
        ids = await load(client)
        answerable = {q: (ids[k], await top_results(client, q)) for q, k in ANSWERABLE.items()}
        off = {q: await top_results(client, q) for q in OFF_TOPIC}
        near = {q: await top_results(client, q) for q in NEAR_MISS}
    return {"answerable": answerable, "off_topic": off, "near_miss": near}


def render(report: dict) -> str:
    def best(results: list[tuple[str, float]]) -> float:
        return max((c for _, c in results), default=0.0)

    lines = [
        "| question | kind | best confidence | answer's confidence (rank) |",
        "|---|---|---:|---:|",
    ]
    for q, (answer, results) in report["answerable"].items():
        ranks = [i for i, (m, _) in enumerate(results, 1) if m == answer]
        own = f"{results[ranks[0] - 1][1]:.3f} ({ranks[0]})" if ranks else "not returned"
        lines.append(f"| {q} | answerable | {best(results):.3f} | {own} |")
    for group in ("off_topic", "near_miss"):
        for q, results in report[group].items():
            lines.append(f"| {q} | {group.replace('_', ' ')} | {best(results):.3f} | |")
    lines += [
        "",
        "| min_confidence | answerable: answer kept | off topic: nothing back | near miss: nothing back |",
        "|---:|---:|---:|---:|",
    ]
    for floor in FLOORS:
        kept = sum(
            any(m == a and c >= floor for m, c in r) for a, r in report["answerable"].values()
        )
        off = sum(best(r) < floor for r in report["off_topic"].values())
        near = sum(best(r) < floor for r in report["near_miss"].values())
        lines.append(
            f"| {floor} | {kept}/{len(ANSWERABLE)} | {off}/{len(OFF_TOPIC)} | {near}/{len(NEAR_MISS)} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    from bench.running_stack import running_stack

    with running_stack() as stack:
        print(render(asyncio.run(run_fixture(stack))))
