"""CSV that a spreadsheet opens as data, never as a formula; and the one gradebook writer.

A student's name, an error message or a username is text someone else chose: a cell that
begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as a formula by
Excel, LibreOffice and Google Sheets (``=HYPERLINK(...)`` sends whoever clicks it anywhere).
Every CSV the project writes goes through ``spreadsheet_row``: such a cell gets a leading
single quote, as OWASP's advice on CSV injection has it, and reads as the text it was.

Every gradebook the project writes (``python -m grader autograde``'s, ``manage.py
gradebook``'s, a course's) is a header, then a line per student ending in their total:
``write_gradebook`` writes them all, so their scores read alike and none skips the quoting.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")

# A gradebook cell: a score (a number), nothing earned yet (None), or a word such as a name.
ScoreOrText = float | str | None


def spreadsheet_cell(value: Any) -> Any:
    """``value`` as a CSV cell: text that begins like a formula gets a leading ``'``.

    Numbers (ints, floats) are written by the csv module as digits and stay as they are.
    """
    if isinstance(value, str) and value.startswith(FORMULA_LEADS):
        return "'" + value
    return value


def spreadsheet_row(cells: Iterable[Any]) -> list[Any]:
    """A row for ``csv.writer.writerow``, every cell through ``spreadsheet_cell``."""
    return [spreadsheet_cell(cell) for cell in cells]


def gradebook_cell(value: ScoreOrText) -> str:
    """A score as every gradebook writes it, in the fewest digits (``10``, ``7.5``); nothing for
    ``None`` (no score yet); text as it is."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return f"{value:g}"


def write_gradebook(
    out: SupportsWrite[str], columns: Sequence[str], lines: Iterable[tuple[Sequence[ScoreOrText], float]]
) -> int:
    """A gradebook as CSV to ``out``: the header (``columns``, then ``total``), then each of
    ``lines`` (its cells, then its total). No cell is one a spreadsheet would run. Returns how
    many lines were written after the header."""
    writer = csv.writer(out)
    writer.writerow(spreadsheet_row([*columns, "total"]))
    written = 0
    for cells, total in lines:
        writer.writerow(spreadsheet_row([*(gradebook_cell(cell) for cell in cells), gradebook_cell(total)]))
        written += 1
    return written
