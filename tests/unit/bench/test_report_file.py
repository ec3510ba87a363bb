"""make bench rewrites only what it measures in docs/benchmarks.md: notes under a measured
section and sections written by hand survive the next run."""

from __future__ import annotations

from pathlib import Path

from bench.report_file import sections_of, updated

DOCUMENT = """# memhive benchmarks

`make bench` on 2026-11-01. Machine: old.

## Latency

| memories | recall p50 |
|---:|---:|
| 10,000 | 33.6 |

(measured in 40 s)

**Embedding threads.** A note written by hand under the figures.

## The write path (issue 25)

A write-up of what was tried.

## Reindex

| memories | time |
|---:|---:|
| 5,000 | 43.4 |

(measured in the make bench run of 2026-11-23)

## Reading these figures

Against the targets.
"""


def fresh(title: str, figures: str) -> tuple[str, str]:
    return title, f"## {title}\n\n{figures}\n\n(measured in 12 s)\n"


def test_measured_sections_are_rewritten_and_everything_else_kept() -> None:
    header = "# memhive benchmarks\n\n`make bench` on 2026-11-26. Machine: new.\n"
    out = updated(
        DOCUMENT, header, [fresh("Latency", "| 10,000 | 25.1 |"), fresh("Reindex", "5,000 in 30 s")]
    )
    intro, sections = sections_of(out)
    assert intro == header + "\n"
    assert [t for t, _ in sections] == [
        "Latency",
        "The write path (issue 25)",
        "Reindex",
        "Reading these figures",
    ]
    latency = dict(sections)["Latency"]
    assert "25.1" in latency and "33.6" not in latency
    assert latency.index("(measured in 12 s)") < latency.index("**Embedding threads.**")
    assert (
        dict(sections)["The write path (issue 25)"]
        == dict(sections_of(DOCUMENT)[1])["The write path (issue 25)"]
    )
    assert "43.4" not in out and "5,000 in 30 s" in out
    assert out.endswith("Against the targets.\n")


def test_a_new_measured_section_goes_after_the_last_measured_one() -> None:
    out = updated(DOCUMENT, "# h\n", [fresh("Latency", "x"), fresh("Where the CPU goes", "y")])
    titles = [t for t, _ in sections_of(out)[1]]
    assert titles == [
        "Latency",
        "Where the CPU goes",
        "The write path (issue 25)",
        "Reindex",
        "Reading these figures",
    ]


def test_a_run_over_its_own_output_changes_nothing() -> None:
    measured = [fresh("Latency", "| 10,000 | 25.1 |")]
    once = updated(DOCUMENT, "# h\n", measured)
    assert updated(once, "# h\n", measured) == once


def test_the_file_in_the_repository_marks_the_end_of_each_measured_section() -> None:
    """Every section make bench measures ends its figures with a "(measured in ...)" line
    in docs/benchmarks.md, so a run keeps the notes written under them."""
    from bench.run_all import OUTPUT, SECTIONS

    _, sections = sections_of(Path(OUTPUT).read_text())
    present = dict(sections)
    for title, _ in SECTIONS:
        if title in present:
            assert "\n(measured in " in present[title], title
