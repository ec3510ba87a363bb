"""Operators' view of the running stack: probes, Prometheus metrics, and one trace per save
across the gateway and every service the save passes through (real bus, real services)."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterator

import pytest
from memhive_link_classifier.app import create_link_classifier
from memhive_settings import LLMSettings
from memhive_telemetry import installed_telemetry
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from tests.integration.llm.chat_server import LITELLM_WARNINGS, Reply, running_chat_server
from tests.integration.nats.consuming import drained
from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save

WAIT_S = 60.0


@pytest.fixture(scope="module")
def spans(stack: Stack) -> Iterator[InMemorySpanExporter]:
    telemetry = installed_telemetry()
    assert telemetry is not None, "create_app installs the process's telemetry"
    exporter = InMemorySpanExporter()
    telemetry.tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield exporter
    exporter.shutdown()  # the provider keeps the processor; it exports nowhere from now on
    # ... and the rest of the session runs as without an exporter (saves answered directly,
    # work per message unrecorded), as `memhive run` does by default.
    telemetry.tracer_provider.exports_spans = False


async def test_liveness_and_readiness_report_bus_disk_lanes_and_model(stack: Stack) -> None:
    async with stack.client(None) as anonymous:
        live = await anonymous.get("/healthz")
        ready = await anonymous.get("/readyz")

    assert live.status_code == 200
    assert ready.status_code == 200
    assert ready.json() == {
        "status": "ready",
        "nats": True,
        "disk": True,
        "lanes": True,
        "model": True,
        "generation": True,
    }


async def test_metrics_count_saves_recalls_lag_lanes_and_dead_letters(
    stack: Stack, workspace: Workspace
) -> None:
    await save(workspace.member, kind="fact", body="The staging cluster runs in Frankfurt")
    assert await recall_ids(workspace.member, "where is staging?")
    # A command nobody can decode: ingest dead-letters it at once.
    await stack.infra.js.publish(f"memhive.cmd.memory.save.{workspace.id}", b"\xff not protobuf")

    async with stack.client(None) as anonymous:
        await _metrics_until(
            anonymous, r'memhive_consumer_dead_letters_total\{[^}]*consumer="ingest"'
        )
        # The save's MemorySaved, acknowledged once both lanes' writes are durable (the
        # lexical lane commits in groups, so a moment after the answer).
        text = await _metrics_until(
            anonymous, r'memhive_consumer_messages_total\{[^}]*consumer="embed"[^}]*outcome="ack"'
        )

    recalls = (
        r'http_server_request_duration_seconds_count\{[^}]*http_route="/v1/recall"[^}]*\} [1-9]'
    )
    saves = r'http_server_request_duration_seconds_count\{[^}]*http_response_status_code="201",http_route="/v1/memories"[^}]*\} [1-9]'
    assert re.search(recalls, text)
    assert re.search(saves, text)
    assert re.search(r'memhive_consumer_pending\{[^}]*consumer="embed"[^}]*\} \d', text)
    assert re.search(r'memhive_lane_documents\{[^}]*lane="vector"[^}]*\} [1-9]', text)
    assert re.search(r'memhive_lane_documents\{[^}]*lane="lexical"[^}]*\} [1-9]', text)


@LITELLM_WARNINGS
async def test_metrics_show_the_link_classifiers_llm_calls_and_tokens(
    stack: Stack, workspace: Workspace
) -> None:
    """LLM spend on /metrics: a link classifier with a model (a stub on loopback that bills
    120 + 30 tokens a call) classifies two related memories; the counters grow by exactly
    the calls it made and the tokens they billed."""
    await save(workspace.member, kind="fact", body="Staging deploys happen every Tuesday")
    await save(workspace.member, kind="fact", body="A staging deploy needs a green build")
    before = await _scraped(stack)
    llm = {"model": "openai/stub", "api_key": "sk-test"}
    async with running_chat_server(Reply('{"links": []}')) as chat:
        settings = stack.infra.settings.model_copy(
            update={"llm": LLMSettings(**llm, api_base=chat.url)}
        )
        durable = f"lc-metrics-{uuid.uuid4().hex[:8]}"
        classifier = await create_link_classifier(
            stack.infra, settings=settings, durable=durable, workspace_id=workspace.id
        )
        await classifier.start()
        try:
            await drained(stack.infra.js, durable)
        finally:
            await classifier.stop()
    after = await _scraped(stack)

    calls = len(chat.requests)
    assert calls == 2  # each memory, indexed before it started, has the other as neighbour
    assert _total(after, "llm_calls") - _total(before, "llm_calls") == calls
    assert _total(after, "llm_tokens") - _total(before, "llm_tokens") == calls * (120 + 30)


async def _scraped(stack: Stack) -> str:
    async with stack.client(None) as anonymous:
        response = await anonymous.get("/metrics")
    assert response.status_code == 200
    return response.text


def _total(text: str, counter: str) -> float:
    name = re.compile(rf"^memhive_link_classifier_{counter}_total(\{{[^}}]*\}})? (\S+)$")
    matches = [name.match(line) for line in text.splitlines()]
    return sum(float(m.group(2)) for m in matches if m)


async def test_one_save_is_one_trace_from_the_gateway_through_every_service_it_reaches(
    stack: Stack, workspace: Workspace, spans: InMemorySpanExporter
) -> None:
    refreshed = await stack.infra.nats.subscribe(f"memhive.evt.bulletin.refreshed.{workspace.id}")
    saved = await save(workspace.member, kind="decision", body="Releases are cut on Tuesdays")

    [request] = [
        s for s in spans.get_finished_spans()
        if s.kind == SpanKind.SERVER and s.name == "POST /v1/memories"
        and s.attributes.get("http.response.status_code") == 201
    ]  # fmt: skip
    trace_id = request.context.trace_id
    trace = await _trace_until(spans, trace_id, "link-classifier process")

    by_name = {s.name: s for s in trace}
    # The gateway records the save itself: its MemorySaved goes straight to embed.
    chain = ["POST /v1/memories", "embed process", "link-classifier process"]
    assert set(chain) <= set(by_name), sorted(by_name)
    for parent, child in zip(chain, chain[1:], strict=False):
        assert by_name[child].parent.span_id == by_name[parent].context.span_id, child
        assert by_name[child].kind == SpanKind.CONSUMER
    assert saved["id"]

    # The bulletin's refresh, debounced after the save's events, is in the same trace (a child
    # of the span that published the first of them, like the bulletin's handling of it), and
    # so is the event that announces it.
    trace = await _trace_until(spans, trace_id, "bulletin refresh")
    [refresh] = [s for s in trace if s.name == "bulletin refresh"]
    handled = [s for s in trace if s.name == "bulletin process"]
    assert refresh.parent.span_id in {s.parent.span_id for s in handled}
    event = await refreshed.next_msg(timeout=WAIT_S)
    assert f"-{trace_id:032x}-" in event.headers["traceparent"], event.headers
    await refreshed.unsubscribe()


async def _metrics_until(client, pattern: str) -> str:
    async with asyncio.timeout(WAIT_S):
        while True:
            response = await client.get("/metrics")
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/plain")
            if re.search(pattern, response.text):
                return response.text
            await asyncio.sleep(0.2)


async def _trace_until(
    exporter: InMemorySpanExporter, trace_id: int, last: str
) -> list[ReadableSpan]:
    async with asyncio.timeout(WAIT_S):
        while True:
            trace = [s for s in exporter.get_finished_spans() if s.context.trace_id == trace_id]
            if any(s.name == last for s in trace):
                return trace
            await asyncio.sleep(0.1)
