"""A bulletin shown on the dashboard: markdown as safe HTML, memory ids as links, and
nothing an agent wrote can run, link elsewhere or load anything."""

from __future__ import annotations

import html.parser

from hypothesis import given
from hypothesis import strategies as st
from memhive_query.dashboard.bulletin_html import bulletin_html

ID = "0195f3a2-1111-7abc-8def-0123456789ab"
BULLETIN = f"""# Memory bulletin: product:ios
## Decisions (1 of 2 shown)
- [{ID}] (decision) We ship *Swift 6* in `ios/`
"""


def test_the_deterministic_bulletin_reads_as_headings_and_a_list_with_links() -> None:
    assert bulletin_html(BULLETIN) == (
        "<h3>Memory bulletin: product:ios</h3>\n"
        "<h4>Decisions (1 of 2 shown)</h4>\n"
        "<ul>\n"
        f'<li>[<a class="memory-id" href="/memory/m/{ID}">{ID}</a>] (decision) We ship '
        "<em>Swift 6</em> in <code>ios/</code></li>\n"
        "</ul>\n"
    )


def test_what_agents_wrote_is_escaped_and_links_nowhere() -> None:
    body = (
        '<script>alert(1)</script> <img src=x onerror="alert(2)"> [click](javascript:alert(3)) '
        "![pixel](https://tracker.example/p.png) <https://evil.example> [a](https://evil.example)"
    )
    shown = bulletin_html(f"- [{ID}] {body}")
    assert "<script" not in shown and "<img" not in shown
    assert shown.count("<a ") == 1 and f'href="/memory/m/{ID}"' in shown
    assert "&lt;script&gt;" in shown


class _Elements(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[tuple[str, str | None]] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes |= {(tag, name) for name, _ in attrs}


SAFE_TAGS = {"h3", "h4", "h5", "h6", "p", "ul", "ol", "li", "em", "strong", "code", "pre"}
SAFE_TAGS |= {"blockquote", "hr", "br", "a"}


MARKUP = st.sampled_from(list("<>\"'&=/[]()!*`#-_ \nabcxyz:;"))


@given(st.text(alphabet=MARKUP, max_size=300) | st.text(max_size=300))
def test_any_text_gives_only_the_subsets_elements(text: str) -> None:
    parsed = _Elements()
    parsed.feed(str(bulletin_html(text)))
    assert parsed.tags <= SAFE_TAGS
    assert parsed.attributes <= {("a", "href"), ("a", "class"), ("ol", "start"), ("code", "class")}
