"""`memhive run` with its data dir on a small tmpfs (root; skipped otherwise) that fills up
during saves and recalls: below the low-space watermark writes are 507 naming the cause, a
log line names the path and the free bytes, /readyz is not ready and reads keep working (an
agent's hook too, which keeps nothing there); filled to the last byte, nothing answers 500
or hangs; once the tmpfs is enlarged, writes resume by themselves within 30 s, and every
acknowledged save is readable and recallable exactly once."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from bench.running_stack import free_port
from tests.e2e.acknowledged import assert_kept_exactly_once
from tests.e2e.process import TOKEN, MemhiveProcess, client
from tests.e2e.workload import Workload
from tests.tmpfs import MiB, fill, resize, small_tmpfs

DISK_MIB, WATERMARK_MIB = 96, 16
HOOK_NOTE = "The zebra ledger of the disk drill lives in vault nine"
HOOK_QUESTION = "where does the zebra ledger live?"
RESUMES_WITHIN_S = 30.0  # issue 24


def ask(url: str, method: str, path: str, **kwargs) -> httpx.Response:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    return httpx.request(method, f"{url}{path}", headers=headers, timeout=30, **kwargs)


def assert_writes_refused_reads_served(url: str, memory_id: str) -> None:
    saved = ask(url, "POST", "/v1/memories", json={"kind": "fact", "body": "refused for now"})
    assert saved.status_code == 507, saved.text
    assert "disk is nearly full" in saved.json()["detail"] and saved.headers["Retry-After"]
    put = ask(url, "PUT", "/v1/kv/global/plan", json={"value": {"step": 2}})
    assert put.status_code == 507, put.text
    ready = httpx.get(f"{url}/readyz", timeout=30)
    assert (ready.status_code, ready.json()["disk"]) == (503, False)
    assert ask(url, "GET", f"/v1/memories/{memory_id}").status_code == 200
    assert ask(url, "GET", "/v1/memories").status_code == 200
    assert ask(url, "POST", "/v1/recall", json={"query": "checklist drawer"}).status_code == 200


def hook_prompt(url: str, prompt: str) -> httpx.Response:
    """Claude Code's prompt hook, over HTTP, in one session throughout the test."""
    event = {"hook_event_name": "UserPromptSubmit", "session_id": "low-disk", "prompt": prompt}
    return ask(url, "POST", "/v1/hooks/claude-code", json=event)


def seconds_until_a_save_is_stored(url: str) -> float:
    started = time.monotonic()
    while True:
        body = {"kind": "fact", "body": "stored once the disk has room", "force": True}
        if ask(url, "POST", "/v1/memories", json=body).status_code in (201, 202):
            return time.monotonic() - started
        assert time.monotonic() - started < 2 * RESUMES_WITHIN_S, "writes never resumed"
        time.sleep(0.2)


@pytest.mark.timeout(600)
def test_a_full_disk_refuses_writes_with_507_and_writes_resume_once_it_is_enlarged(
    tmp_path: Path,
) -> None:
    with small_tmpfs(tmp_path / "disk", DISK_MIB) as disk:
        settings = {
            "MEMHIVE_STORAGE__MIN_FREE": f"{WATERMARK_MIB}MiB",
            "MEMHIVE_EMBEDDING__CACHE_DIR": str(tmp_path / "models"),  # ~90 MB: not on it
        }
        data = disk / "data"
        memhive = MemhiveProcess(data, free_port(), free_port(), "disk", env=settings,
                                 log_dir=tmp_path)  # fmt: skip
        try:
            with memhive.explained():
                memhive.wait_until_ready()
                with Workload(memhive.url, "Disk") as load:
                    load.wait_for_acks(10)
                    note = {"kind": "fact", "body": HOOK_NOTE, "force": True}
                    noted = ask(memhive.url, "POST", "/v1/memories?wait=indexed", json=note)
                    assert noted.status_code == 201, noted.text
                    fill(disk, leave_bytes=WATERMARK_MIB * MiB // 2)
                    # A save the bus took just before is waiting to be indexed, which waits for
                    # space (up to save_wait_timeout_s): the clients' next saves are refused.
                    load.wait_for_answer("save", 507)
                    assert_writes_refused_reads_served(memhive.url, next(iter(load.acked.values())))
                    low = hook_prompt(memhive.url, HOOK_QUESTION)  # a read: answered
                    fill(disk)  # to the last byte: the bus's own writes fail now
                    time.sleep(3)
                    acked_while_full = len(load.acked)
                    resize(disk, 4 * DISK_MIB)
                    resumed_after = seconds_until_a_save_is_stored(memhive.url)
                    load.wait_for_acks(acked_while_full + 5)
                    again = hook_prompt(memhive.url, HOOK_QUESTION)

                assert resumed_after <= RESUMES_WITHIN_S
                # The hook answered below the watermark but kept nothing on the bus (its list
                # is not worth the room kept free), so its session is given the memory again.
                memory_id = noted.json()["id"]
                assert low.status_code == 200 and memory_id in low.text, low.text
                assert again.status_code == 200 and memory_id in again.text, again.text
                assert [a for a in load.answers if a.status is None or a.status == 500] == []
                full = [a for a in load.answers if a.kind == "save" and a.status == 507]
                assert full and all(a.retry_after for a in full)
                assert {a.status for a in load.answers if a.kind == "recall"} <= {200, 503}
                assert f"low disk space: {data} has" in memhive.output()
                with client(memhive.url) as checked:
                    assert_kept_exactly_once(checked, load.acked)
                assert memhive.ctrl_c() == 0, memhive.output()
        finally:
            memhive.ensure_gone()
