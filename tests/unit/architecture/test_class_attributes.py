"""A class attribute declared twice silently shadows the first (settings once declared `llm`
twice, and the first class was never used). ruff's PIE794 catches it too; this test keeps it
caught when the lint is not run."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GENERATED = ROOT / "libs" / "contracts" / "src" / "memhive"


def source_files() -> list[Path]:
    roots = [ROOT / "src", *ROOT.glob("libs/*/src"), *ROOT.glob("services/*/src")]
    files = [f for r in roots for f in r.rglob("*.py")]
    return [f for f in files if GENERATED not in f.parents]


def declared_names(cls: ast.ClassDef) -> list[str]:
    names: list[str] = []
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return names


def duplicate_attributes(source: str) -> list[str]:
    found = []
    for cls in ast.walk(ast.parse(source)):
        if isinstance(cls, ast.ClassDef):
            names = declared_names(cls)
            found += [f"{cls.name}.{n}" for n in sorted({n for n in names if names.count(n) > 1})]
    return found


def test_the_check_finds_a_shadowed_attribute() -> None:
    source = "class S:\n    llm: int = 1\n    other: str = ''\n    llm: float = 2.0\n"
    assert duplicate_attributes(source) == ["S.llm"]


def test_no_class_declares_an_attribute_twice() -> None:
    files = source_files()
    assert len(files) > 100  # the walk found the tree
    found = {
        str(f.relative_to(ROOT)): d for f in files if (d := duplicate_attributes(f.read_text()))
    }
    assert found == {}
