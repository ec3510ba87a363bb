"""The checked-in protobuf code must be what `make proto` generates from proto/ today."""

from __future__ import annotations

from pathlib import Path

import pytest
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[3]
PROTO_DIR = ROOT / "proto"
GENERATED_DIR = ROOT / "libs" / "contracts" / "src"


def _generate(into: Path) -> None:
    protos = sorted(str(p.relative_to(PROTO_DIR)) for p in PROTO_DIR.rglob("*.proto"))
    include = str(Path(protoc.__file__).parent / "_proto")
    args = ["protoc", f"-I{PROTO_DIR}", f"-I{include}", f"--python_out={into}", f"--pyi_out={into}"]
    assert protoc.main([*args, *protos]) == 0, "protoc failed on proto/"


def test_every_generated_file_matches_its_proto(tmp_path: Path) -> None:
    _generate(tmp_path)
    fresh = {p.relative_to(tmp_path): p.read_text() for p in tmp_path.rglob("*_pb2.py*")}
    assert fresh, "no protobuf code was generated"
    for relative, text in fresh.items():
        checked_in = GENERATED_DIR / relative
        if not checked_in.exists() or checked_in.read_text() != text:
            pytest.fail(f"{relative} is stale: run `make proto` and commit the result")


def test_no_generated_file_without_its_proto(tmp_path: Path) -> None:
    _generate(tmp_path)
    fresh = {p.relative_to(tmp_path) for p in tmp_path.rglob("*_pb2.py*")}
    checked_in = {p.relative_to(GENERATED_DIR) for p in GENERATED_DIR.rglob("*_pb2.py*")}
    assert checked_in <= fresh, f"generated code without a proto: {sorted(checked_in - fresh)}"
