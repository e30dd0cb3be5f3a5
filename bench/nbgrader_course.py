"""The same batch of student notebooks under nbgrader, for ``bench.autograde --vs-nbgrader``.

nbgrader is not a dependency of jaxjudge: it is installed, pinned (``requirements-nbgrader.txt``,
with the project's own pins of JAX, hypothesis and numpy), into a virtual environment of its
own under ``.cache/`` on first use. Its kernel runs in that environment.

The course has one assignment, ``aot_compiled_sum``, written as an nbgrader instructor would:
the statement, a solution cell, and autograded test cells (the visible tests, then the hidden
ones between ``BEGIN HIDDEN TESTS`` markers). The hidden cells check what jaxjudge's hidden
tests check that can be checked in the student's own kernel, with the same strategies, example
counts and assertions (imported from ``grader``): the value and dtype against the reference
across lengths, dtypes and shapes (empty and 0-d too), and that XLA compiled during the call for
a length never seen. nbgrader has no sandbox and no proxy, so neither the stages the code went
through nor anything the student might forge is checked: it does less work than jaxjudge.

Each student notebook is nbgrader's released notebook with the solution cell holding the same
code as the student's jaxjudge notebook (and the same extra cells).
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from grader.problem import REPO_ROOT, load_problem

ASSIGNMENT = "aot_compiled_sum"
ENVIRONMENT = REPO_ROOT / ".cache" / "bench-nbgrader"
REQUIREMENTS = Path(__file__).with_name("requirements-nbgrader.txt")

SOLUTION = """\
### BEGIN SOLUTION
import jax
import jax.numpy as jnp


def aot_compiled_sum(x):
    compiled = jax.jit(jnp.sum).lower(x).compile()
    return compiled(x)
### END SOLUTION
"""

VISIBLE_TESTS = """\
import jax.numpy as jnp

total = aot_compiled_sum(jnp.arange(5, dtype=jnp.float32))
assert total == 10.0 and total.dtype == jnp.float32, total
total = aot_compiled_sum(jnp.asarray([1, 2, 3], dtype=jnp.int32))
assert total == 6 and total.dtype == jnp.int32, total
"""

HIDDEN_SETUP = """\
### BEGIN HIDDEN TESTS
import sys

sys.path.insert(0, {repo!r})  # jaxjudge's strategies and assertions, as its hidden tests use them

import jax
import jax.numpy as jnp
from hypothesis import given, settings

from grader.assertions import assert_same_array
from grader.strategies import arrays

compiles = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, seconds, **_: compiles.append(event)
    if event == "/jax/core/compile/backend_compile_duration"
    else None
)


def reference(x):
    return jax.jit(jnp.sum).lower(x).compile()(x)


examples = settings(max_examples={examples}, derandomize=True, deadline=None, database=None)
### END HIDDEN TESTS
"""

HIDDEN_TESTS = {
    "across_lengths_and_dtypes": """\
@examples
@given(x=arrays(max_side=48))
def matches_the_reference_across_lengths_and_dtypes(x):
    assert_same_array(aot_compiled_sum(x), reference(x), what="aot_compiled_sum(x)")


matches_the_reference_across_lengths_and_dtypes()
""",
    "every_shape": """\
@examples
@given(x=arrays(min_dims=0, max_dims=3, min_side=0, max_side=5))
def sums_every_shape_including_empty_and_zero_dimensional(x):
    assert_same_array(aot_compiled_sum(x), reference(x), what="aot_compiled_sum(x)")


sums_every_shape_including_empty_and_zero_dimensional()
""",
    "never_seen_length": """\
x = jnp.linspace(-1.0, 1.0, 1031, dtype=jnp.float32)
before = len(compiles)
assert_same_array(aot_compiled_sum(x), reference(x))
assert len(compiles) > before, "aot_compiled_sum(x) returned without XLA compiling anything for x"
""",
    "single_element": """\
x = jnp.asarray([-7], dtype=jnp.int8)
assert_same_array(aot_compiled_sum(x), reference(x))
""",
}


def nbgrader_command() -> Path:
    """nbgrader's command, installed into its own environment on first use."""
    command = ENVIRONMENT / "bin" / "nbgrader"
    if not command.exists():
        print(f"installing nbgrader into {ENVIRONMENT} (once) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(ENVIRONMENT)], check=True)
        pip = [str(ENVIRONMENT / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, "-r", str(REQUIREMENTS)], check=True, cwd=REQUIREMENTS.parent)
    return command


def _cell(kind: str, source: str, grade_id: str, *, points: float = 0.0) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source) if kind != "markdown" else nbformat.v4.new_markdown_cell(source)
    metadata = {"grade_id": grade_id, "locked": kind != "solution", "schema_version": 3, "solution": False}
    metadata["grade"] = kind == "tests"
    if kind == "solution":
        metadata["solution"] = True
    if kind == "tests":
        metadata["points"] = points
    cell.metadata["nbgrader"] = metadata
    return cell


def source_notebook(examples: int) -> nbformat.NotebookNode:
    """The assignment as its instructor writes it, before ``nbgrader generate_assignment``."""
    problem = load_problem(ASSIGNMENT)
    cells = [_cell("markdown", problem.statement, "statement"), _cell("solution", SOLUTION, "solution")]
    cells.append(_cell("tests", VISIBLE_TESTS, "visible_tests", points=3))
    cells.append(_cell("tests", HIDDEN_SETUP.format(repo=str(REPO_ROOT), examples=examples), "hidden_setup"))
    for name, source in HIDDEN_TESTS.items():
        hidden = f"### BEGIN HIDDEN TESTS\n{source}### END HIDDEN TESTS\n"
        cells.append(_cell("tests", hidden, f"hidden_{name}", points=1))
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


class Course:
    """An nbgrader course directory with the assignment released and the students' notebooks handed in."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.command = nbgrader_command()
        examples = load_problem(ASSIGNMENT).max_examples
        (root / "source" / ASSIGNMENT).mkdir(parents=True)
        nbformat.write(source_notebook(examples), root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
        (root / "nbgrader_config.py").write_text(
            "c = get_config()\n"
            "c.CourseDirectory.course_id = 'bench'\n"
            f"c.CourseDirectory.db_assignments = [dict(name={ASSIGNMENT!r})]\n"
            "c.ExecutePreprocessor.timeout = 120\n"
        )
        self.run("generate_assignment", ASSIGNMENT, "--force")
        self.released = nbformat.read(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)

    def run(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        environment = {**os.environ, "PATH": f"{self.command.parent}:{os.environ['PATH']}"}
        return subprocess.run(
            [str(self.command), *arguments], cwd=self.root, env=environment, check=True, capture_output=True, text=True
        )

    def hand_in(self, student: str, code: str, extra_cells: list[str]) -> None:
        """The released notebook with the student's code in the solution cell (and their extra cells)."""
        notebook = nbformat.from_dict(self.released)
        for cell in notebook.cells:
            if cell.metadata.get("nbgrader", {}).get("solution"):
                cell.source = code
        notebook.cells += [nbformat.v4.new_code_cell(source) for source in extra_cells]
        folder = self.root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / f"{ASSIGNMENT}.ipynb")

    def autograde(self) -> dict[str, float]:
        """Run nbgrader's serial autograde of every hand-in (again from scratch); each student's
        score as a fraction of the points."""
        shutil.rmtree(self.root / "autograded", ignore_errors=True)
        self.run("autograde", ASSIGNMENT, "--force")
        self.run("export", "--to", "grades.csv")
        with (self.root / "grades.csv").open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        return {row["student_id"]: float(row["raw_score"] or 0) / float(row["max_score"]) for row in rows}
