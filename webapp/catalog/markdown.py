"""Problem statements as HTML: Markdown with highlighted code and math, sanitised before it is shown.

Math (``$x^2$``, ``$$\\sum_i x_i$$``) becomes MathML on the server, which browsers draw
themselves: no script and no font download on the page.
"""

from __future__ import annotations

import re
from typing import Any

import nh3
from latex2mathml.converter import convert as latex_to_mathml
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

ALLOWED_TAGS = {
    "a", "p", "pre", "code", "span", "div", "em", "strong", "ul", "ol", "li", "h1", "h2", "h3",
    "h4", "blockquote", "table", "thead", "tbody", "tr", "th", "td", "br", "hr",
}  # fmt: skip
MATHML_TAGS = {
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "mfrac", "msqrt", "mroot", "msup", "msub",
    "msubsup", "munder", "mover", "munderover", "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom",
    "menclose", "semantics", "annotation",
}  # fmt: skip
MATHML_ATTRIBUTES = {
    "display", "xmlns", "mathvariant", "stretchy", "fence", "separator", "form", "lspace", "rspace", "accent",
    "accentunder", "columnalign", "rowspacing", "columnspacing", "width", "height", "depth", "linethickness",
    "displaystyle", "scriptlevel", "movablelimits", "notation", "minsize", "maxsize", "symmetric", "largeop",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "span": {"class"},
    "div": {"class"},
    "code": {"class"},
    "pre": {"class", "tabindex"},
    **{tag: MATHML_ATTRIBUTES for tag in MATHML_TAGS},
}


def _highlight(code: str, language: str, _attributes: str) -> str:
    try:
        lexer = get_lexer_by_name(language or "python")
    except ClassNotFound:
        return ""  # markdown-it escapes and wraps it as plain code
    return str(highlight(code, lexer, HtmlFormatter(nowrap=False)))


def highlighted_python(code: str) -> str:
    """Python code as highlighted HTML (Pygments escapes the code)."""
    return focusable_code(_highlight(code, "python", ""))


def _math(display: str) -> Any:
    def render(renderer: RendererHTML, tokens: list[Token], index: int, options: OptionsDict, env: EnvType) -> str:
        try:
            return str(latex_to_mathml(tokens[index].content, display=display))
        except Exception:  # malformed LaTeX: show the source rather than fail the page
            return f"<code>{escapeHtml(tokens[index].content)}</code>"

    return render


_renderer = MarkdownIt("commonmark", {"highlight": _highlight}).enable("table")
# "$5 and $6" stays prose: math may not start with a digit or touch a space inside its dollars.
_renderer.use(dollarmath_plugin, allow_space=False, allow_digits=False)
_renderer.add_render_rule("math_inline", _math("inline"))
_renderer.add_render_rule("math_block", _math("block"))


def render_markdown(text: str) -> str:
    """Markdown to HTML that is safe to show: scripts, handlers and unknown tags removed."""
    html = nh3.clean(_renderer.render(text), tags=ALLOWED_TAGS | MATHML_TAGS, attributes=ALLOWED_ATTRIBUTES)
    return focusable_code(html)


_PRE = re.compile(r"<pre(?=[ >])")


def focusable_code(html: str) -> str:
    """Code blocks reachable from the keyboard: a long line scrolls its block sideways, and a
    region that scrolls must take focus to be scrolled without a mouse."""
    return _PRE.sub('<pre tabindex="0"', html)
