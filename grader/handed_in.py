"""Grading what a student hands in as text: code typed in the site's editor, or a notebook's JSON.

The site's one call into grading (``webapp.grading.grade_code``). The text is checked here and
becomes a ``SubmissionSource``; text that cannot be graded at all is a verdict like any other
(a syntax error, an invalid notebook), never an exception. The grading runs in a warm sandbox
of this process's pool for the problem's device (``grader.pools``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from grader.pools import PoolKind, sandbox_pool
from grader.problem import load_problem
from grader.report import Report, TestResult
from grader.source import SubmissionInputError, notebook_source, source_from_text
from grader.verdicts import Verdict


class Stoppable(Protocol):
    """A sandbox as the caller may hold it while it grades: only to stop it (a Cancel)."""

    def stop(self) -> None: ...


def grade_text(
    slug: str,
    code: str,
    *,
    filename: str,
    include_hidden: bool,
    notebook: str = "",
    on_test: Callable[[TestResult], None] | None = None,
    on_sandbox: Callable[[Stoppable], None] | None = None,
) -> Report:
    """Grade ``code`` (named ``filename`` in its tracebacks) for problem ``slug``; with
    ``notebook`` (its JSON), the notebook instead, run as Jupyter runs it.

    ``on_test`` gets each test as soon as it ends; ``on_sandbox`` the sandbox before anything
    runs in it. Only a fault of the platform raises.
    """
    from grader.harness import grade_submission  # imports JAX and pytest: not for the vocabulary

    problem = load_problem(slug)
    try:
        source = notebook_source(notebook, "notebook.ipynb") if notebook else source_from_text(code, filename)
    except SubmissionInputError as exc:
        verdict = Verdict.INVALID_SUBMISSION if notebook else Verdict.SYNTAX_ERROR
        return Report(problem=slug, verdict=verdict, score=0.0, max_score=problem.points, message=str(exc))
    with sandbox_pool(PoolKind(device=problem.sandbox_device, notebook=source.is_notebook)).sandbox() as session:
        if on_sandbox is not None:
            on_sandbox(session)
        return grade_submission(problem, source, include_hidden=include_hidden, session=session, on_test=on_test)


def report_without_verdict(problem: str, message: str, tests: list[dict[str, Any]]) -> dict[str, Any]:
    """The stored report of a grading that ended with no verdict (cancelled, or failed by the
    platform): the report's own shape and schema, with an empty verdict and no score; ``tests``
    are those that had ended, as they were shown live."""
    shape = Report(problem=problem, verdict=Verdict.INTERNAL_ERROR, score=0.0, max_score=0.0, message=message)
    return {**shape.to_dict(), "verdict": "", "score": None, "max_score": None, "tests": tests}
