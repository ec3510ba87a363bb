"""LiteLlmChat against a real OpenAI-compatible HTTP server on loopback."""

from __future__ import annotations

import pytest
from memhive_adapters.llm.litellm_chat import LiteLlmChat
from memhive_ports import LlmUnavailable, MalformedOutput

from tests.integration.llm.chat_server import (
    LITELLM_WARNINGS,
    Reply,
    Stall,
    Status,
    running_chat_server,
)

pytestmark = LITELLM_WARNINGS


def chat(url: str, timeout_s: float = 30.0) -> LiteLlmChat:
    return LiteLlmChat(
        "openai/stub-model", api_base=url, api_key="sk-test", timeout_s=timeout_s,
        max_output_tokens=321,
    )  # fmt: skip


async def test_a_json_answer_is_parsed_with_its_token_count() -> None:
    async with running_chat_server(Reply('{"links": [{"memory": 1}]}', 100, 20)) as server:
        reply = await chat(server.url).complete_json("system text", "user text")

    assert (reply.data, reply.tokens) == ({"links": [{"memory": 1}]}, 120)
    sent = server.requests[0]
    assert sent["model"] == "stub-model"
    assert sent["response_format"] == {"type": "json_object"}
    assert sent["max_tokens"] == 321
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]


async def test_a_fenced_json_answer_is_accepted() -> None:
    async with running_chat_server(Reply('```json\n{"links": []}\n```')) as server:
        reply = await chat(server.url).complete_json("s", "u")

    assert reply.data == {"links": []}


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("Sure! Here are the links you asked for.", "not JSON"),
        ('{"links": [', "not JSON"),
        ('[{"memory": 1}]', "expected a JSON object, got list"),
        ("", "no content"),
        (None, "no content"),
    ],
)
async def test_malformed_answers_raise_with_the_reason_and_the_tokens_spent(
    content: str | None, reason: str
) -> None:
    async with running_chat_server(Reply(content, 40, 2)) as server:
        with pytest.raises(MalformedOutput, match=reason) as raised:
            await chat(server.url).complete_json("s", "u")

    assert raised.value.tokens == 42
    assert len(server.requests) == 1  # litellm's own retries are off


async def test_a_rate_limit_is_retryable_and_not_retried_here() -> None:
    async with running_chat_server(Status(429, "slow down")) as server:
        with pytest.raises(LlmUnavailable, match="RateLimitError"):
            await chat(server.url).complete_json("s", "u")

    assert len(server.requests) == 1


async def test_a_server_error_is_retryable() -> None:
    async with running_chat_server(Status(503, "overloaded")) as server:
        with pytest.raises(LlmUnavailable):
            await chat(server.url).complete_json("s", "u")


async def test_a_stalled_answer_times_out_as_retryable() -> None:
    async with running_chat_server(Stall()) as server:
        with pytest.raises(LlmUnavailable, match="Timeout"):
            await chat(server.url, timeout_s=0.5).complete_json("s", "u")


async def test_plain_text_completion_for_chat_model_callers() -> None:
    async with running_chat_server(Reply("A short briefing.", 50, 5)) as server:
        completion = await chat(server.url).complete(
            [{"role": "user", "content": "summarise"}], max_tokens=64
        )

    assert (completion.text, completion.prompt_tokens, completion.completion_tokens) == (
        "A short briefing.", 50, 5,
    )  # fmt: skip
    assert "response_format" not in server.requests[0]
    assert server.requests[0]["max_tokens"] == 64
