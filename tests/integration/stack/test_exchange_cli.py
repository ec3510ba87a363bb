"""`memhive import` and `memhive export` against the stack's gateway over loopback HTTP: what
a person sees (the dry run's plan, what was skipped and why, a bad file's lines), the files
written, and an import of a file the real mem0 library wrote (when its environment exists)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
import uuid
from pathlib import Path

import pytest
from memhive_domain.principals import Principal, Role

from memhive_cli import exchange
from memhive_cli.main import main
from tests.integration.stack.conftest import Stack
from tests.integration.stack.test_import_export import CLAUDE_MD, admin_client
from tests.integration.stack.test_large_imports import HEADER, MIB, never_ending

ROOT = Path(__file__).resolve().parents[3]
MEM0_PYTHON = Path(
    os.environ.get("MEMHIVE_MEM0_PYTHON", ROOT / ".tools" / "peers" / "mem0" / "bin" / "python")
)
MEM0_WRITER = ROOT / "tests" / "integration" / "exchange" / "mem0_writer.py"


def write(path: Path | str, text: str) -> None:
    Path(path).write_text(text)


def read(path: Path | str) -> str:
    return Path(path).read_text()


async def memhive(capsys, *argv: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
async def admin(stack: Stack, gateway_url: str) -> list[str]:
    token = await stack.infra.tokens.issue(
        Principal(f"ws-{uuid.uuid4().hex[:12]}", "root", Role.ADMIN)
    )
    return ["--url", gateway_url, "--token", token]


async def test_import_a_claude_md_then_export_it(admin, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    write("CLAUDE.md", CLAUDE_MD)
    code, _, planned = await memhive(capsys, "import", "CLAUDE.md", "--dry-run", *admin)
    assert code == 0, planned
    assert "CLAUDE.md: 5 would create, 0 skipped" in planned
    assert "  line 6: created preference at global" in planned

    code, _, done = await memhive(capsys, "import", "CLAUDE.md", *admin)
    assert code == 0 and "CLAUDE.md: 5 created, 0 skipped" in done
    code, _, again = await memhive(capsys, "import", "CLAUDE.md", *admin)
    assert "CLAUDE.md: 0 created, 5 skipped" in again
    assert "line 5: skipped: already here: memory " in again

    code, _, _ = await memhive(capsys, "export", "-o", "out.jsonl", *admin)
    lines = [json.loads(line) for line in read("out.jsonl").splitlines()]
    assert code == 0 and len([x for x in lines if x.get("type") == "memory"]) == 5
    code, _, _ = await memhive(capsys, "export", "--format", "markdown", "-o", "md", *admin)
    assert code == 0 and "## Preferences" in read("md/global.md")


async def test_a_bad_file_names_its_lines_and_imports_nothing(admin, tmp_path, capsys) -> None:
    bad = tmp_path / "export.jsonl"
    write(bad, '{"memhive_export": 1, "workspace_id": "w"}\n{"type": "memory"}\nnot json\n')
    code, _, err = await memhive(capsys, "import", str(bad), *admin)
    assert code == 1
    assert "nothing was imported:" in err
    assert "line 2: memory: must be a JSON object" in err and "line 3: not JSON" in err


async def test_several_files_are_all_checked_before_any_is_written(
    admin, tmp_path, capsys, stack: Stack
) -> None:
    good, bad = tmp_path / "AGENTS.md", tmp_path / "broken.jsonl"
    write(good, "- Always run the linter before pushing\n")
    write(bad, "{}\n")
    code, _, err = await memhive(capsys, "import", str(good), str(bad), *admin)
    assert code == 1 and "broken.jsonl" in err
    code, _, err = await memhive(capsys, "export", *admin)
    assert code == 0 and "0 lines exported" in err


@pytest.mark.skipif(
    not MEM0_PYTHON.exists(),
    reason=f"no mem0 environment at {MEM0_PYTHON} (make mem0-env, or set MEMHIVE_MEM0_PYTHON)",
)
async def test_a_file_written_by_the_real_mem0(admin, tmp_path, capsys, stack: Stack) -> None:
    out = tmp_path / "mem0.json"
    writer = await asyncio.to_thread(
        subprocess.run,
        [str(MEM0_PYTHON), str(MEM0_WRITER), str(out), str(tmp_path / "mem0")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert writer.returncode == 0, writer.stderr[-2000:]
    written = json.loads(read(out))["results"]
    code, _, err = await memhive(capsys, "import", str(out), "--scope-path", "product:shop", *admin)
    assert code == 0, err
    assert f"{out}: 3 created, 0 skipped" in err
    token = admin[admin.index("--token") + 1]
    async with stack.client(token) as client:
        listed = (await client.get("/v1/memories?limit=100")).json()["items"]
        by_ref = {m["source_ref"]: m for m in listed}
        nodes = {by_ref[f"mem0:{w['id']}"]["scope_path"] for w in written}
        food = next(w for w in written if w["memory"] == "Prefers vegetarian food")
        kept = await client.get(f"/v1/kv/product:shop/team:alice/mem0.{food['id']}")
    assert nodes == {
        "product:shop/team:alice",
        "product:shop/team:alice/agent:planner",
        "product:shop/agent:planner",
    }
    assert by_ref[f"mem0:{food['id']}"]["kind"] == "preference"
    assert by_ref[f"mem0:{food['id']}"]["tags"] == ["mem0", "food"]
    assert kept.json()["value"]["metadata"] == food["metadata"]
    assert kept.json()["value"]["created_at"] == food["created_at"]
    code, _, err = await memhive(capsys, "import", str(out), "--scope-path", "product:shop", *admin)
    assert f"{out}: 0 created, 3 skipped" in err  # a second import creates nothing


async def test_an_import_waits_its_turn_while_the_gateway_is_busy(
    stack: Stack, admin, tmp_path, capsys, monkeypatch
) -> None:
    """Another import holds the gateway's share for imports: the CLI says so, waits as told
    (Retry-After), and imports once it is free."""
    told_to_wait, asked = threading.Event(), exchange._retry_after

    def retry_after(answer):
        pause = asked(answer)
        if pause is not None:
            told_to_wait.set()
        return pause

    monkeypatch.setattr(exchange, "_retry_after", retry_after)
    write(tmp_path / "CLAUDE.md", CLAUDE_MD)
    async with await admin_client(stack, f"ws-{uuid.uuid4().hex[:12]}") as other:
        uploads = []
        for size in (32 * MIB, 8 * MIB):  # the whole budget
            sent = asyncio.Event()
            body = never_ending(HEADER, sent)
            headers = {"Content-Length": str(size)}
            uploads.append(
                asyncio.create_task(other.post("/v1/import", content=body, headers=headers))
            )
            await asyncio.wait_for(sent.wait(), timeout=30)
        cli = asyncio.create_task(memhive(capsys, "import", str(tmp_path / "CLAUDE.md"), *admin))
        assert await asyncio.to_thread(told_to_wait.wait, 60)
        for upload in uploads:
            upload.cancel()
        await asyncio.gather(*uploads, return_exceptions=True)
        code, _, err = await asyncio.wait_for(cli, timeout=60)
    assert code == 0, err
    assert "busy with other imports" in err and "trying again in 5 s" in err
    assert "CLAUDE.md: 5 created, 0 skipped" in err
