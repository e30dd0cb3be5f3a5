"""CSV cells that a spreadsheet opens as data, never as a formula.

A student's name, an error message or a username is text someone else chose: a cell that
begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as a formula by
Excel, LibreOffice and Google Sheets (``=HYPERLINK(...)`` sends whoever clicks it anywhere).
Every CSV the project writes goes through ``spreadsheet_row``: such a cell gets a leading
single quote, as OWASP's advice on CSV injection has it, and reads as the text it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


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
