"""A handed-in notebook seen from the trusted side: which cells run, and what came back.

A notebook runs as Jupyter runs it, and wholly inside its sandbox: nbclient and the IPython
kernel both live there (``sandbox.inside``), so this side never speaks
to a kernel, reads a ZeroMQ message or opens a file the sandbox made. It sends the sources of
the notebook's code cells (not its test cells) with the ``notebook`` request, which may take
the sandbox's whole time and no more, and takes from the reply each cell's outputs (checked
again against ``cell_outputs``' allow-list: text and PNG images, printable, capped), the cell
that raised or the error that broke the run. The reply's own size counts against the output
limit, whatever the sandbox says of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sandbox import protocol
from sandbox.cell_outputs import OutputBudget, clean_outputs, clean_text, execution_count

if TYPE_CHECKING:
    import nbformat

    from sandbox.host.session import SandboxSession

# Cells tagged so are not run: the visible tests belong to the harness, not to the notebook.
SKIPPED_TAGS = frozenset({"tests", "hidden-tests"})
MAX_TRACEBACK_CHARS = 4_000


class CellFailed(Exception):
    """A cell of the notebook raised: the run stops there, as Jupyter's "Run All" does."""

    def __init__(self, index: int, first_line: str, error_type: str, error_text: str, traceback: str) -> None:
        self.index = index
        self.first_line = first_line
        self.error_type = error_type
        self.error_text = error_text
        self.traceback = traceback
        where = f"cell {index + 1} ({first_line})" if index >= 0 else "a cell"
        super().__init__(f"{where} raised {error_type}: {error_text}")


class NotebookBroken(Exception):
    """The run itself broke (a message the kernel forged, a kernel that stopped answering):
    the student's notebook did it, so it is the student's verdict."""


@dataclass
class NotebookRun:
    """What running a notebook's cells left: the notebook with its (cleaned) outputs."""

    notebook: nbformat.NotebookNode
    seconds: float = 0.0
    output_bytes: int = 0
    failed: CellFailed | None = field(default=None)


def cell_tags(cell: Any) -> list[str]:
    """A cell's tags, whatever its metadata holds (a handed-in file may hold anything)."""
    metadata = cell.get("metadata") if isinstance(cell, dict) else None
    tags = metadata.get("tags") if isinstance(metadata, dict) else None
    return [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []


def cells_to_run(notebook: nbformat.NotebookNode) -> list[int]:
    """The indices of the code cells the notebook runs (its test cells are the harness's)."""
    return [
        index
        for index, cell in enumerate(notebook.cells)
        if cell.get("cell_type") == "code" and not SKIPPED_TAGS & set(cell_tags(cell))
    ]


def take_run(
    session: SandboxSession, notebook: nbformat.NotebookNode, ran: list[int], reply: dict[str, Any], seconds: float
) -> NotebookRun:
    """Put the outputs of the ``notebook`` reply into ``notebook`` (the cells ``ran``, in order).

    Raises ``CellFailed`` for a cell that raised, ``NotebookBroken`` for a run that broke, and
    the session's output error (the sandbox killed) when the notebook printed too much.
    """
    import nbformat

    run = NotebookRun(notebook=notebook, seconds=seconds)
    cells = reply.get(protocol.NOTEBOOK_CELLS)
    cells = cells if isinstance(cells, list) else []
    run.output_bytes = len(json.dumps(cells, default=lambda value: "?"))
    if reply.get(protocol.NOTEBOOK_OUTPUT_EXCEEDED) is True or run.output_bytes > session.limits.output_limit_bytes:
        raise session.output_exceeded()
    budget = OutputBudget()
    for cell in notebook.cells:
        if cell.get("cell_type") == "code":
            cell.outputs, cell.execution_count = [], None
    for index, result in zip(ran, cells, strict=False):
        if isinstance(result, dict):
            outputs = clean_outputs(result.get("outputs"), budget)
            notebook.cells[index].outputs = [nbformat.from_dict(output) for output in outputs]
            notebook.cells[index].execution_count = execution_count(result.get("execution_count"))
    failed = reply.get(protocol.NOTEBOOK_FAILED)
    if isinstance(failed, dict):
        position = failed.get("cell")
        index = ran[position] if type(position) is int and 0 <= position < len(ran) else -1
        run.failed = CellFailed(
            index,
            _first_line(notebook.cells[index].get("source")) if index >= 0 else "",
            clean_text(failed.get("ename"), 200) or "Exception",
            clean_text(failed.get("evalue"), 2000),
            clean_text(failed.get("traceback"), MAX_TRACEBACK_CHARS, keep="end"),
        )
        raise run.failed
    error = reply.get(protocol.NOTEBOOK_ERROR)
    if isinstance(error, str) and error:
        raise NotebookBroken(f"the notebook's kernel broke Jupyter's protocol: {clean_text(error, 500)}")
    return run


def _first_line(source: Any) -> str:
    text = source if isinstance(source, str) else ""
    lines = [line for line in text.splitlines() if line.strip()]
    return clean_text(lines[0].strip(), 80) if lines else ""
