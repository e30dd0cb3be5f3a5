"""The one module of the web app that reaches the grader (its Python API, never its CLI)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.autograde import AutogradeUsageError, Graded, autograde, one_line, summary_table
from grader.handed_in import Stoppable, grade_text, report_without_verdict, warmed_problems
from grader.handed_in import warm_up as warm_up_grader
from grader.pools import close_pools, unenforced_limits
from grader.problem import (
    DEVICES,
    DIFFICULTIES,
    SECTIONS,
    Explanation,
    KnownWrong,
    Problem,
    ProblemError,
    all_problems,
    installed_problem,
    load_problem,
    problems_dir,
    solutions_dir,
    without_docstring,
)
from grader.report import hidden_failures, hidden_properties
from grader.source import SubmissionInputError, read_submission
from grader.spreadsheet import spreadsheet_row, write_gradebook
from grader.verdicts import Verdict

# Warm sandboxes per device (and per kind: code, or a notebook with its kernel), one pool each
# per worker process (``grader.pools``): a submission never waits for `import jax` in its
# sandbox. Created by the first grading of its kind (or by `warm_up`).

# What the site uses of the grader, re-exported: its models, views and commands reach the
# grader here and nowhere else (pyproject.toml's import contract); the pools' close and the
# limits' check are for the worker command and the server.
__all__ = [
    "DEVICES",
    "DIFFICULTIES",
    "SECTIONS",
    "AutogradeUsageError",
    "Explanation",
    "Graded",
    "KnownWrong",
    "Problem",
    "Stoppable",
    "SubmissionInputError",
    "Verdict",
    "autograde",
    "close_pools",
    "hidden_failures",
    "hidden_properties",
    "level_for_staff",
    "one_line",
    "read_submission",
    "report_without_verdict",
    "spreadsheet_row",
    "summary_table",
    "unenforced_limits",
    "warmed_problems",
    "write_gradebook",
]

# The name a workspace's code is graded under: its tracebacks and syntax errors say
# 'File "solution.py", line 4', which the result links to that line of the editor.
WORKSPACE_FILENAME = "solution.py"


class InstallRefused(Exception):
    """A problem that cannot be installed; the message says why."""


@dataclass(frozen=True)
class InstallResult:
    problem: Problem
    checks: list[str]


def installed_problems() -> list[Problem]:
    return all_problems()


def level_for_staff(slug: str, *, attempts: int, solved: int) -> str:
    """The problem's level as its rubric gives it (``grader.levels``), with its evidence and this
    class's solve rate once enough students have tried it; "" where it has no rubric or is no
    longer installed."""
    try:
        rubric = installed_problem(slug).rubric(attempts=attempts, solved=solved)
    except ProblemError:
        return ""
    return rubric.explained() if rubric is not None else ""


def install_problem(
    notebook: Path, *, solution: Path | None = None, wrong: Sequence[Path] = (), update: bool = False
) -> InstallResult:
    """Validate a problem notebook with its solutions, then copy it into problems/ and solutions/.

    The notebook's metadata must load; the reference (``solution``, or the one already
    installed when updating) must be accepted; the starter and every wrong solution must not.
    Nothing is copied unless all of that holds.
    """
    from grader.validate import prerequisite_checks, validate_problem  # imports JAX: only when installing

    try:
        candidate = load_problem(notebook)
    except ProblemError as exc:
        raise InstallRefused(str(exc)) from None
    target = problems_dir() / f"{candidate.slug}.ipynb"
    if target.exists() and not update:
        raise InstallRefused(f"problem {candidate.slug!r} is already installed; use --update for a new version")
    installed_solutions = solutions_dir() / candidate.slug
    reference = solution or installed_solutions / "reference.py"
    if not reference.is_file():
        raise InstallRefused(f"{candidate.slug}: a reference solution is needed (--solution PY)")
    wrong_files = list(wrong) or sorted(installed_solutions.glob("wrong_*.py"))

    with tempfile.TemporaryDirectory(prefix="jaxjudge-install-") as staging:
        staged_solutions = Path(staging) / "solutions" / candidate.slug
        staged_solutions.mkdir(parents=True)
        staged_notebook = Path(staging) / f"{candidate.slug}.ipynb"
        shutil.copy(notebook, staged_notebook)
        shutil.copy(reference, staged_solutions / "reference.py")
        for index, path in enumerate(wrong_files):
            name = path.name if path.name.startswith("wrong_") else f"wrong_{index}_{path.name}"
            shutil.copy(path, staged_solutions / name)
        staged = load_problem(staged_notebook, solutions_root=Path(staging) / "solutions")
        others = [problem for problem in all_problems() if problem.slug != candidate.slug]
        checks = [*validate_problem(staged), *prerequisite_checks([staged], others)]
        lines = [f"{'ok  ' if c.ok else 'FAIL'} {c.label}: {c.verdict}" for c in checks]
        if not all(c.ok for c in checks):
            failed = [line for line, c in zip(lines, checks, strict=True) if not c.ok]
            raise InstallRefused(f"{candidate.slug} did not validate:\n" + "\n".join(failed))
        problems_dir().mkdir(parents=True, exist_ok=True)
        shutil.copy(staged_notebook, target)
        if installed_solutions.exists():
            shutil.rmtree(installed_solutions)
        shutil.copytree(staged_solutions, installed_solutions)
    return InstallResult(load_problem(target), lines)


def reference_solution_text(slug: str) -> str:
    """The reference solution's source, for students allowed to see it."""
    return load_problem(slug).reference_solution.read_text()


def reference_code(reference: str) -> str:
    """The reference's code as the editorial shows it: without its docstring, shown above it."""
    return without_docstring(reference).strip("\n") + "\n"


def written_editorial(slug: str) -> tuple[Explanation, list[KnownWrong]]:
    """What the editorial says in words: why the reference works (its docstring), and the mistake
    and verdict of each known-wrong solution (their docstrings and expect lines; never their code)."""
    problem = load_problem(slug)
    return problem.explanation(), problem.known_wrong()


def student_notebook(slug: str, *, student: str, code: str | None = None) -> str:
    """The problem as a notebook to download (no hidden tests), as JSON text.

    Its ``grader`` metadata names the problem and ``student``, so that ``grader autograde``
    knows whose it is and what it solves, and ``signature`` signs the two with the site's secret
    (``webapp.notebook_identity``), so that ``manage.py autograde`` can believe the name;
    ``code``, the student's draft, replaces the starter.
    """
    import nbformat

    from webapp.notebook_identity import sign_notebook_identity

    problem = load_problem(slug)
    notebook = problem.student_notebook()
    notebook.metadata["grader"]["student"] = student
    notebook.metadata["grader"]["signature"] = sign_notebook_identity(problem.slug, student)
    if code is not None:
        for cell in notebook.cells:
            if "starter" in cell.metadata.get("tags", []):
                cell.source = code
    return str(nbformat.writes(notebook))


ALLOW_UNENFORCED_LIMITS_HELP = (
    "run as root, give the worker a delegated cgroup (docs/sandbox-and-security.md, 'Limits without root'), "
    "or accept it with --allow-unenforced-limits (JAXJUDGE_ALLOW_UNENFORCED_LIMITS=1)"
)


def warm_up(
    device: str = "cpu", slugs: Sequence[str] = (), *, work_waiting: Callable[[], bool] | None = None
) -> list[str]:
    """Import the grader, start this process's sandboxes and warm the problems ``slugs`` (those of
    ``device``: each graded once with its reference, ``grader.handed_in.warm_up``), so that the
    first Submit of each is as fast as the next; the slugs warmed. Warming stops as soon as
    ``work_waiting()`` holds (a submission queued meanwhile).

    Notebooks (staff's, for regrading) are rare: their pool starts on demand.
    """
    return warm_up_grader(device, slugs, work_waiting=work_waiting)


def grade_code(
    slug: str,
    code: str,
    *,
    include_hidden: bool,
    notebook: str = "",
    on_test: Callable[[dict[str, Any]], None] | None = None,
    on_sandbox: Callable[[Stoppable], None] | None = None,
) -> dict[str, Any]:
    """Grade ``code`` (or ``notebook``, its JSON) for problem ``slug`` in a warm sandbox; the
    report as it is stored (``grader.handed_in.grade_text``).

    ``on_test`` gets each test's outcome as soon as it ends, as the page shows it live;
    ``on_sandbox`` the sandbox before anything runs in it (its ``stop()`` cancels). Every
    mistake of the student's comes back as a verdict in the report; only a fault of the
    platform raises.
    """
    report = grade_text(
        slug,
        code,
        filename=WORKSPACE_FILENAME,
        include_hidden=include_hidden,
        notebook=notebook,
        on_test=None if on_test is None else lambda test: on_test(test.to_live_dict()),
        on_sandbox=on_sandbox,
    )
    return report.to_dict()
