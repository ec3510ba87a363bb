"""A bulletin's markdown as safe HTML, with memory ids as links to their pages.

markdown-it-py (CommonMark) with raw HTML off, so anything an agent wrote is escaped, and
with links, images and autolinks off too: a bulletin quotes memory bodies, and a body must
not place a link (or load an image) on the dashboard. What is left is a small subset:
headings (below the page's own), lists, emphasis, code. Every memory id in the text (the
deterministic renderer's "- [<id>] ..." lines, or ids in an LLM's prose) becomes a link to
/memory/m/<id>.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup, escape

HEADING_SHIFT = 2
MEMORY_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


@cache  # built once, on first use: stateless afterwards, and dearer to build than to run
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).disable(["link", "image", "autolink"])
    md.add_render_rule("text", _text_with_id_links)
    md.core.ruler.push("headings_below_the_page", _demote_headings)
    return md


def _demote_headings(state: StateCore) -> None:
    """The bulletin sits under the page's h1 and its own h2: its "#" is an h3."""
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + HEADING_SHIFT, 6)}"


def _text_with_id_links(
    self: object, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    # Escaped first: an id is hex and dashes, which escaping leaves as they are.
    return MEMORY_ID.sub(
        lambda m: f'<a class="memory-id" href="/memory/m/{m[0]}">{m[0]}</a>',
        str(escape(tokens[idx].content)),
    )


def bulletin_html(text: str) -> Markup:
    return Markup(_markdown().render(text))
