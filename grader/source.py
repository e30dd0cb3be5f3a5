"""Reading a submission from a ``.py`` file or a notebook, with clear errors for bad input."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

MAX_SUBMISSION_BYTES = 256 * 1024
# A line a notebook runs through IPython rather than Python: %magic, %%cell magic, !shell.
IPYTHON_ONLY_LINE = re.compile(r"^\s*(%%?|!)\S")


class SubmissionInputError(Exception):
    """The submission cannot be graded at all (missing, not text, too large, ...)."""


@dataclass(frozen=True)
class SubmissionSource:
    """The Python source of a submission and the name to report it under."""

    text: str
    filename: str


def read_submission(path: str | Path) -> SubmissionSource:
    """Read a ``.py`` file, or the student's code cells of an ``.ipynb`` notebook."""
    path = Path(path)
    if not path.exists():
        raise SubmissionInputError(f"{path}: no such file")
    if not path.is_file():
        raise SubmissionInputError(f"{path}: not a regular file")
    size = path.stat().st_size
    if size > MAX_SUBMISSION_BYTES:
        raise SubmissionInputError(
            f"{path}: {size} bytes is too large for a submission (the limit is {MAX_SUBMISSION_BYTES} bytes)"
        )
    data = path.read_bytes()
    if b"\x00" in data:
        raise SubmissionInputError(f"{path}: binary file (it contains NUL bytes); submit Python source")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SubmissionInputError(f"{path}: not UTF-8 text (byte {exc.start} is invalid)") from None
    if path.suffix == ".ipynb":
        text = notebook_code(text, path.name)
    if not text.strip():
        raise SubmissionInputError(f"{path}: the submission is empty")
    return SubmissionSource(text=text, filename=path.name)


def source_from_text(text: str, filename: str = "submission.py") -> SubmissionSource:
    """A submission given as text (from the web editor, say), checked like a file."""
    encoded = text.encode("utf-8", errors="replace")
    if len(encoded) > MAX_SUBMISSION_BYTES:
        raise SubmissionInputError(f"{filename}: {len(encoded)} bytes is too large for a submission")
    if "\x00" in text:
        raise SubmissionInputError(f"{filename}: the submission contains NUL characters")
    if not text.strip():
        raise SubmissionInputError(f"{filename}: the submission is empty")
    return SubmissionSource(text=text, filename=filename)


def notebook_code(text: str, name: str) -> str:
    """The student's code from a notebook: every code cell except the visible-test cells."""
    import nbformat  # only notebooks need it, and it is slow to import

    try:
        notebook = nbformat.reads(text, as_version=4)
    except (json.JSONDecodeError, nbformat.reader.NotJSONError):
        raise SubmissionInputError(f"{name}: not a Jupyter notebook (invalid JSON)") from None
    except Exception as exc:  # nbformat's own validation and version errors
        raise SubmissionInputError(f"{name}: not a readable notebook: {exc}") from None
    pieces = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        if "tests" in tags or "hidden-tests" in tags:
            continue
        for line_number, line in enumerate(cell.source.splitlines(), 1):
            if IPYTHON_ONLY_LINE.match(line):
                raise SubmissionInputError(
                    f"{name}: cell {index}, line {line_number}: IPython magics and shell escapes "
                    f"({line.strip()[:40]!r}) are not Python; remove them before submitting"
                )
        pieces.append(f"# --- cell {index} ---\n{cell.source}")
    return "\n\n".join(pieces) + "\n"
