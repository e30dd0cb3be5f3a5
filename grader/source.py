"""Reading a submission from a ``.py`` file or a notebook, with clear errors for bad input."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# A notebook carries its outputs (images, say): it may be larger than a .py file.
MAX_SUBMISSION_BYTES = 256 * 1024
MAX_NOTEBOOK_BYTES = 8 * 2**20
# The sandbox reports each code cell's outputs in one reply of at most 100,000 values
# (``sandbox.protocol.MAX_NODES``), about ten a cell: far more cells could not be told back,
# and no notebook a student writes comes near this many.
MAX_NOTEBOOK_CODE_CELLS = 5_000


class SubmissionInputError(Exception):
    """The submission cannot be graded at all (missing, not text, too large, ...)."""


@dataclass(frozen=True)
class SubmissionSource:
    """The Python source of a submission and the name to report it under.

    A notebook keeps its JSON in ``notebook`` (it is run cell by cell, as Jupyter runs it);
    ``text`` is then the code of its cells (magics included), which seeds its examples, and
    ``metadata`` the one block of its metadata that is kept (``grader``: problem and student,
    the student's text, read as hostile data where it is used). The file is read once, here:
    whatever records a grading records this, the code that was graded.
    """

    text: str
    filename: str
    notebook: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def is_notebook(self) -> bool:
        return self.notebook is not None


def read_submission(path: str | Path) -> SubmissionSource:
    """Read a ``.py`` file, or the student's code cells of an ``.ipynb`` notebook."""
    path = Path(path)
    if not path.exists():
        raise SubmissionInputError(f"{path}: no such file")
    if not path.is_file():
        raise SubmissionInputError(f"{path}: not a regular file")
    size = path.stat().st_size
    limit = MAX_NOTEBOOK_BYTES if path.suffix == ".ipynb" else MAX_SUBMISSION_BYTES
    if size > limit:
        raise SubmissionInputError(f"{path}: {size} bytes is too large for a submission (the limit is {limit} bytes)")
    data = path.read_bytes()
    if b"\x00" in data:
        raise SubmissionInputError(f"{path}: binary file (it contains NUL bytes); submit Python source")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SubmissionInputError(f"{path}: not UTF-8 text (byte {exc.start} is invalid)") from None
    if path.suffix == ".ipynb":
        return notebook_source(text, path.name)
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


def notebook_source(text: str, name: str) -> SubmissionSource:
    """A notebook submission: checked to be a readable notebook with some code of the student's."""
    import nbformat  # only notebooks need it, and it is slow to import

    if not text.strip():
        raise SubmissionInputError(f"{name}: the notebook is empty (the file has no content)")
    try:
        notebook = nbformat.reads(text, as_version=4)
    except (json.JSONDecodeError, nbformat.reader.NotJSONError):
        raise SubmissionInputError(f"{name}: not a Jupyter notebook (invalid JSON)") from None
    except Exception as exc:  # nbformat's own validation and version errors
        raise SubmissionInputError(f"{name}: not a readable notebook: {str(exc)[:300]}") from None
    if not isinstance(notebook.get("cells"), list):
        raise SubmissionInputError(f"{name}: not a Jupyter notebook (it has no cells)")
    notebook = rebuilt_notebook(notebook)
    code_cells = sum(1 for cell in notebook.cells if cell.cell_type == "code")
    if code_cells > MAX_NOTEBOOK_CODE_CELLS:
        raise SubmissionInputError(
            f"{name}: the notebook has {code_cells} code cells; a notebook may have at most {MAX_NOTEBOOK_CODE_CELLS}"
        )
    code = student_code(notebook)
    if not code.strip():
        raise SubmissionInputError(f"{name}: the notebook has no code to grade")
    # Plain data (not nbformat's nodes), so that it crosses to the process that records it.
    metadata = json.loads(json.dumps(notebook.metadata))
    return SubmissionSource(text=code, filename=name, notebook=nbformat.writes(notebook), metadata=metadata)


def rebuilt_notebook(handed_in: Any) -> Any:
    """The notebook a student handed in, rebuilt from what grading reads, every field checked.

    Any field of the file may hold anything (``"tags": 5``, a cell that is a number): from
    here on the grader sees cells whose sources are text and whose tags are a list of text,
    outputs that passed the allow-list (``sandbox.cell_outputs``), and of the notebook's
    metadata the ``grader`` block alone (which names problem and student, and is read as
    hostile data where it is used). Nothing else of the file is kept: no trust, widget state,
    attachments or cell metadata.
    """
    import nbformat

    from sandbox.cell_outputs import OutputBudget, clean_outputs, execution_count
    from sandbox.host.notebook import cell_tags

    rebuilt = nbformat.v4.new_notebook()
    grader_block = handed_in.get("metadata", {}).get("grader") if isinstance(handed_in.get("metadata"), dict) else None
    if isinstance(grader_block, dict):
        rebuilt.metadata["grader"] = grader_block
    budget = OutputBudget()
    for cell in handed_in.get("cells"):
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            continue
        source = cell.get("source")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        source = source if isinstance(source, str) else ""
        metadata = {"tags": cell_tags(cell)} if cell_tags(cell) else {}
        if cell["cell_type"] == "code":
            code = nbformat.v4.new_code_cell(source, metadata=metadata)
            code.outputs = [nbformat.from_dict(output) for output in clean_outputs(cell.get("outputs"), budget)]
            code.execution_count = execution_count(cell.get("execution_count"))
            rebuilt.cells.append(code)
        elif cell["cell_type"] == "markdown":
            rebuilt.cells.append(nbformat.v4.new_markdown_cell(source, metadata=metadata))
        else:
            rebuilt.cells.append(nbformat.v4.new_raw_cell(source, metadata=metadata))
    return rebuilt


def student_code(notebook: Any) -> str:
    """The code of a notebook's cells that run when it is graded (not its test cells)."""
    from sandbox.host.notebook import cells_to_run

    pieces = []
    for index in cells_to_run(notebook):
        source = notebook.cells[index].get("source")
        pieces.append(f"# --- cell {index + 1} ---\n{source if isinstance(source, str) else ''}")
    return "\n\n".join(pieces) + "\n" if pieces else ""
