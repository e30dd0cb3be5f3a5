"""Shared fixtures: throwaway problems written as real notebooks, and a grading helper."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from sandbox import protocol
from sandbox.host.session import SandboxSession

STATEMENT = """
## Why this matters

A test problem.

## Worked mini-example

`f(1) == 1`

## Common pitfalls

None.

## Problem

Write `answer()`.

- **Input:** nothing.
- **Returns:** what the tests ask for.
- **Checked:** the tests below.
"""


def write_problem(
    root: Path,
    slug: str,
    *,
    hidden_tests: str,
    reference: str,
    visible_tests: str = "",
    starter: str = "def answer():\n    raise NotImplementedError\n",
    entry_points: tuple[str, ...] = ("answer",),
    wrong: dict[str, str] | None = None,
    **metadata: object,
) -> Path:
    """Write ``problems/<slug>.ipynb`` and ``solutions/<slug>/`` under ``root``."""
    notebook = new_notebook()
    notebook.metadata["grader"] = {
        "slug": slug,
        "title": f"Test problem {slug}",
        "difficulty": "easy",
        "category": "tracing",
        "tags": ["test"],
        "objective": "Pass the tests.",
        "minutes": 5,
        "entry_points": list(entry_points),
        "max_examples": 5,
        **metadata,
    }
    hints = ["A nudge.", "The concept: https://docs.jax.dev/en/latest/jit-compilation.html", "The shape of it."]
    cells = [new_markdown_cell(STATEMENT.strip()), *(new_markdown_cell(hint) for hint in hints)]
    for cell in cells[1:]:
        cell.metadata["tags"] = ["hint"]
    for tag, source in (("starter", starter), ("tests", visible_tests), ("hidden-tests", hidden_tests)):
        if source:
            cell = new_code_cell(textwrap.dedent(source).strip())
            cell.metadata["tags"] = [tag]
            cells.append(cell)
    notebook.cells = cells
    (root / "problems").mkdir(parents=True, exist_ok=True)
    solutions = root / "solutions" / slug
    solutions.mkdir(parents=True, exist_ok=True)
    (solutions / "reference.py").write_text(textwrap.dedent(reference))
    for name, source in (wrong or {}).items():
        (solutions / f"wrong_{name}.py").write_text(textwrap.dedent(source))
    path = root / "problems" / f"{slug}.ipynb"
    nbformat.write(notebook, path)
    return path


@pytest.fixture
def problem_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private problems/ and solutions/ pair that the grader looks in."""
    monkeypatch.setenv("JAXJUDGE_PROBLEMS_DIR", str(tmp_path / "problems"))
    monkeypatch.setenv("JAXJUDGE_SOLUTIONS_DIR", str(tmp_path / "solutions"))
    return tmp_path


@pytest.fixture
def make_problem(problem_root: Path) -> Callable[..., Path]:
    def make(slug: str, **kwargs: object) -> Path:
        return write_problem(problem_root, slug, **kwargs)  # type: ignore[arg-type]

    return make


def sandbox_processes() -> set[str]:
    """Runtime processes started by this test process, or orphaned (escaped) ones."""
    parents = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                parents[pid] = handle.read().rsplit(")", 1)[1].split()[1]
        except (OSError, IndexError):
            pass
    found = set()
    for pid in parents:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if b"sandbox.inside.runtime import main" not in handle.read():
                    continue
        except OSError:
            continue
        if parents[pid] == "1":  # orphaned: escaped from whatever started it
            found.add(pid)
            continue
        ancestor, hops = parents.get(pid), 0
        while ancestor not in (None, "0", "1", str(os.getpid())) and hops < 64:
            ancestor, hops = parents.get(ancestor), hops + 1
        if ancestor == str(os.getpid()):
            found.add(pid)
    return found


def call(session: SandboxSession, name: str) -> tuple[str, dict[str, Any]]:
    """Call the submission's function ``name`` with no arguments, through the sandbox channel."""
    return session.request(protocol.CALL, target=name, method=None, args=[], kwargs={})


def student_notebook(problem: Any, solution: str, extra_cells: Sequence[str] = ()) -> Any:
    """The notebook a student downloads for ``problem``, ``solution`` in its starter cell and
    ``extra_cells`` (code) after the rest, as they hand it in."""
    notebook = problem.student_notebook()
    for cell in notebook.cells:
        if "starter" in cell.metadata.get("tags", []):
            cell.source = solution
    notebook.cells += [new_code_cell(source) for source in extra_cells]
    return notebook
