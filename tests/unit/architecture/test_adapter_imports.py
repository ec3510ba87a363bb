"""Services import adapters only where they compose them (docs/architecture.md, "Layers").

Routes, subscribers and use cases work over ports; only a composition root picks the
backends. Every module under services/*/src is parsed (no import runs), so an import hidden
inside a function or behind TYPE_CHECKING counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SERVICES = ROOT / "services"
ADAPTERS = "memhive_adapters"

COMPOSITION_ROOTS = {
    "bulletin/src/memhive_bulletin/app.py",
    "embed/src/memhive_embed/app.py",
    "ingest/src/memhive_ingest/app.py",
    "link_classifier/src/memhive_link_classifier/app.py",
    "query/src/memhive_query/app.py",
    "query/src/memhive_query/gateway.py",
    "query/src/memhive_query/ops_app.py",  # the background services' /healthz listener
    "query/src/memhive_query/dashboard/wiring.py",  # the dashboard's use cases
    # Not a root but allowed: the reindexer drives the lane generations themselves
    # (`runtime/lane_generations.py`, `runtime/lane_set.py`: build, move the pointer, swap,
    # drop), which are composition machinery with no port of their own.
    "embed/src/memhive_embed/reindex.py",
}


def imported_modules(source: str) -> list[str]:
    """Every module an import statement names, at any depth of the tree."""
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def imports_adapters(source: str) -> bool:
    return any(n == ADAPTERS or n.startswith(f"{ADAPTERS}.") for n in imported_modules(source))


def service_modules() -> dict[str, Path]:
    files = [f for src in SERVICES.glob("*/src") for f in src.rglob("*.py")]
    return {f.relative_to(SERVICES).as_posix(): f for f in files}


def test_the_check_finds_every_form_of_import() -> None:
    for source in (
        "import memhive_adapters\n",
        "import memhive_adapters.nats.consumer as c\n",
        "from memhive_adapters.nats.dead_letters import DeadLetter\n",
        "from memhive_adapters import runtime\n",
        "def f():\n    from memhive_adapters.runtime.probes import readiness\n",
        "if TYPE_CHECKING:\n    from memhive_adapters.runtime.infrastructure import I\n",
    ):
        assert imports_adapters(source), source
    for source in (
        "from memhive_ports.dead_letters import DeadLetter\n",
        "import memhive_adapters_extra\n",
        "from . import memhive_adapters\n",
    ):
        assert not imports_adapters(source), source


def test_every_allowed_module_exists() -> None:
    assert COMPOSITION_ROOTS - service_modules().keys() == set()


def test_services_import_adapters_only_in_composition_roots() -> None:
    modules = service_modules()
    assert len(modules) > 50  # the walk found the services
    offenders = sorted(
        name
        for name, path in modules.items()
        if name not in COMPOSITION_ROOTS and imports_adapters(path.read_text())
    )
    assert offenders == [], f"import memhive_adapters only in a composition root: {offenders}"
