"""Where a message points into the student's code, as links to that line of the editor."""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from webapp.grading import WORKSPACE_FILENAME

register = template.Library()

_FILE = re.escape(WORKSPACE_FILENAME)
# Python's traceback frames ('File "solution.py", line 4'), the grader's syntax error
# ("syntax error in solution.py, line 2") and JAX's tracing notes ("at solution.py:1").
# Six digits at most: a message is the submission's to write, and no editor has more lines.
_BARE = rf"(?<![\w./-]){_FILE}"  # not the end of another file's name
CODE_LINE = re.compile(rf'(?:File "{_FILE}", |{_BARE}, )line (\d{{1,6}})\b|{_BARE}:(\d{{1,6}})\b')


@register.filter
def code_links(message: object) -> SafeString:
    """``message`` escaped, each place it names in the student's code a link that the problem
    page's editor follows (``data-line``); elsewhere the link goes to the code as shown."""
    text = str(message)
    parts: list[str] = []
    end = 0
    for match in CODE_LINE.finditer(text):
        line = int(match.group(1) or match.group(2))
        if line < 1:
            continue
        parts.append(escape(text[end : match.start()]))
        parts.append(
            format_html('<a class="code-line" href="#solution-code" data-line="{}">{}</a>', line, match.group(0))
        )
        end = match.end()
    parts.append(escape(text[end:]))
    return mark_safe("".join(parts))  # every piece was escaped or built by format_html
