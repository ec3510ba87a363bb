"""LLM prose for bulletins, through litellm against a real OpenAI-compatible stub server."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from memhive_adapters.llm.litellm_chat import LiteLlmChat
from memhive_adapters.tokens.tiktoken_counter import TiktokenCounter
from memhive_application.spend_guard import SpendGuard
from memhive_bulletin.prose import ProseBriefing
from memhive_domain.bulletin import RENDERER, Bulletin, BulletinBudget, render_bulletin
from memhive_domain.kinds import MemoryKind
from memhive_domain.memory import Memory, MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_domain.scopes import Scope, ScopeRef

from tests.fakes import FixedClock
from tests.integration.llm.chat_server import ChatServer, Reply, running_chat_server

# litellm's response types trip a pydantic UserWarning on first use; the suite makes warnings
# errors, and this one is litellm's to fix.
pytestmark = pytest.mark.filterwarnings("ignore:.*using the `ReadOnly` qualifier:UserWarning")

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
BUDGET = BulletinBudget(total_tokens=800, per_section_tokens=300)
COUNTER = TiktokenCounter()


@pytest.fixture
async def stub() -> AsyncIterator[tuple[ChatServer, str]]:
    async with running_chat_server(Reply("")) as server:
        yield server, server.url


def memory(kind: MemoryKind, body: str, *, pinned: bool = False) -> Memory:
    principal = Principal("ws", "agent")
    draft = MemoryDraft(kind=kind, body=body, pinned=pinned, scope=Scope.GLOBAL)
    return create_memory(
        draft, memory_id=str(uuid.uuid4()), principal=principal, now=NOW - timedelta(hours=1)
    )


@pytest.fixture
def memories() -> list[Memory]:
    return [
        memory(MemoryKind.FACT, "Production runs in eu-west-1", pinned=True),
        memory(MemoryKind.DECISION, "We use Postgres for the ledger"),
        memory(MemoryKind.TODO, "Upgrade the TLS certificates"),
    ]


def deterministic(memories: list[Memory]) -> Bulletin:
    return render_bulletin(
        ScopeRef(Scope.GLOBAL),
        memories,
        superseded=set(),
        count_tokens=COUNTER.count,
        budget=BUDGET,
        generated_at=NOW,
    )


def briefing(api_base: str, clock: FixedClock, calls_per_minute: int = 10) -> ProseBriefing:
    chat = LiteLlmChat("openai/stub-model", api_base=api_base, api_key="sk-test", timeout_s=10)
    spend = SpendGuard(clock, calls_per_minute=calls_per_minute, tokens_per_day=100_000)
    return ProseBriefing(chat, COUNTER, spend, summary_words=80)


async def test_a_good_summary_is_served(stub, memories) -> None:
    llm, api_base = stub
    pinned, decision, _ = memories
    llm.script(
        Reply(
            f"Production lives in eu-west-1 [{pinned.id}]; the ledger is on Postgres [{decision.id}]."
        )
    )
    plain = deterministic(memories)
    served = await briefing(api_base, FixedClock(NOW)).rewrite(plain, memories, BUDGET)
    assert served.text == llm.scripts[0].content
    assert served.renderer == "llm/openai/stub-model"
    assert served.token_count == COUNTER.count(llm.scripts[0].content)
    assert served.shown_ids == (pinned.id, decision.id)
    assert served.fingerprint == plain.fingerprint and served.sources == plain.sources
    # The model was shown the deterministic bulletin and told to cite its ids.
    sent = llm.requests[0]["messages"]
    assert sent[1]["content"] == plain.text and "square brackets" in sent[0]["content"]


async def test_a_summary_citing_an_unknown_id_is_rejected(stub, memories) -> None:
    llm, api_base = stub
    pinned = memories[0]
    llm.script(Reply(f"Production is in eu-west-1 [{pinned.id}], see also [0000-made-up]."))
    plain = deterministic(memories)
    prose = briefing(api_base, FixedClock(NOW))
    served = await prose.rewrite(plain, memories, BUDGET)
    assert served == plain and served.renderer == RENDERER
    assert "0000-made-up" in prose.rejections[-1][0]


async def test_a_summary_dropping_a_pinned_memory_is_rejected(stub, memories) -> None:
    llm, api_base = stub
    _, decision, _ = memories
    llm.script(Reply(f"The ledger is on Postgres [{decision.id}]."))
    plain = deterministic(memories)
    prose = briefing(api_base, FixedClock(NOW))
    assert await prose.rewrite(plain, memories, BUDGET) == plain
    assert "pinned" in prose.rejections[-1][0]


async def test_spend_is_bounded_by_calls_per_minute(stub, memories) -> None:
    llm, api_base = stub
    llm.script(Reply(f"Production is in eu-west-1 [{memories[0].id}]."))
    clock = FixedClock(NOW)
    prose = briefing(api_base, clock, calls_per_minute=1)
    plain = deterministic(memories)
    assert (await prose.rewrite(plain, memories, BUDGET)).renderer.startswith("llm/")
    assert await prose.rewrite(plain, memories, BUDGET) == plain
    assert len(llm.requests) == 1
    clock.current += timedelta(minutes=1)
    assert (await prose.rewrite(plain, memories, BUDGET)).renderer.startswith("llm/")
    assert len(llm.requests) == 2


async def test_an_unreachable_model_leaves_the_deterministic_render(memories) -> None:
    plain = deterministic(memories)
    served = await briefing("http://127.0.0.1:9/v1", FixedClock(NOW)).rewrite(
        plain, memories, BUDGET
    )
    assert served == plain
