"""Problem statements as HTML: Markdown with highlighted code, sanitised before it is shown."""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

ALLOWED_TAGS = {
    "a", "p", "pre", "code", "span", "div", "em", "strong", "ul", "ol", "li", "h1", "h2", "h3",
    "h4", "blockquote", "table", "thead", "tbody", "tr", "th", "td", "br", "hr",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "span": {"class"}, "div": {"class"}, "code": {"class"}, "pre": {"class"}}


def _highlight(code: str, language: str, _attributes: str) -> str:
    try:
        lexer = get_lexer_by_name(language or "python")
    except ClassNotFound:
        return ""  # markdown-it escapes and wraps it as plain code
    return str(highlight(code, lexer, HtmlFormatter(nowrap=False)))


_renderer = MarkdownIt("commonmark", {"highlight": _highlight}).enable("table")


def render_markdown(text: str) -> str:
    """Markdown to HTML that is safe to show: scripts, handlers and unknown tags removed."""
    return nh3.clean(_renderer.render(text), tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES)
