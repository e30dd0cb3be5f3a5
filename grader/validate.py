"""Problem validation: the reference passes, the starter fails, every wrong solution fails.

A wrong solution may declare the verdict it must get on a line ``# expect: VERDICT``;
without one, any verdict but ``accepted`` will do.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from grader.harness import grade_submission
from grader.problem import Problem, all_problems, load_problem
from grader.report import Report
from grader.source import SubmissionSource, read_submission
from grader.verdicts import Verdict
from sandbox.backends import Backend, get_backend
from sandbox.pool import SandboxPool

EXPECT_LINE = re.compile(r"^#\s*expect:\s*(\w+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Check:
    """One solution graded during validation, and whether it got what it had to."""

    problem: str
    label: str
    verdict: Verdict
    ok: bool
    detail: str
    report: Report


def expected_verdict(path: Path) -> Verdict | None:
    match = EXPECT_LINE.search(path.read_text())
    return Verdict(match.group(1)) if match else None


def validate_problem(problem: Problem, backend: Backend) -> list[Check]:
    """Grade the reference, the starter and every wrong solution of one problem."""
    with SandboxPool(backend, replace_early=True) as pool:
        return _validate(problem, pool)


def _validate(problem: Problem, pool: SandboxPool) -> list[Check]:
    def grade(source: SubmissionSource) -> Report:
        with pool.sandbox() as session:
            return grade_submission(problem, source, session=session)

    checks = []
    reference = grade(read_submission(problem.reference_solution))
    checks.append(Check(problem.slug, "reference", reference.verdict, reference.accepted, reference.message, reference))
    starter = grade(SubmissionSource(problem.starter, "starter.py"))
    checks.append(Check(problem.slug, "starter", starter.verdict, not starter.accepted, starter.message, starter))
    wrong_solutions = problem.wrong_solutions()
    if not wrong_solutions:
        checks.append(Check(problem.slug, "wrong solutions", Verdict.INTERNAL_ERROR, False, "none found", starter))
    for path in wrong_solutions:
        report = grade(read_submission(path))
        wanted = expected_verdict(path)
        ok = not report.accepted and (wanted is None or report.verdict == wanted)
        detail = report.message if wanted is None else f"expected {wanted}; {report.message}"
        checks.append(Check(problem.slug, path.name, report.verdict, ok, detail, report))
    return checks


def validate_problems(names: Sequence[str], *, backend_name: str | None = None, out: TextIO = sys.stdout) -> bool:
    """Validate the named problems (all when none are named); print one line per check."""
    backend = get_backend(backend_name)
    problems = [load_problem(name) for name in names] if names else all_problems()
    all_ok = True
    for problem in problems:
        for check in validate_problem(problem, backend):
            all_ok &= check.ok
            mark = "ok  " if check.ok else "FAIL"
            print(f"{mark} {check.problem:<20} {check.label:<32} {check.verdict}", file=out)
            if not check.ok:
                print(f"     {check.detail}", file=out)
    return all_ok
