"""The canary problem, and grading a hostile submission to it with every check of the suite.

The secret lives in the hidden tests, in the reference solution and in the expected value the
harness computes; only a submission that returns it is accepted, so a leak shows as
``accepted``.
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET

from grader.harness import grade_submission
from grader.problem import REPO_ROOT, Problem
from grader.report import Report
from grader.source import SubmissionSource
from grader.verdicts import Verdict
from sandbox.host.backends import BwrapBackend
from sandbox.host.prestarted import SandboxPool
from tests.conftest import sandbox_processes

SECRET = "canary-5e1f0a7b9c"
FOUND = "canary-5"  # what the searches look for: a prefix of the secret only

CANARY_HIDDEN_TESTS = f"""
EXPECTED_HERE = "{SECRET}"


def test_answer(submission, reference):
    assert submission.answer() == reference.answer(), "that is not the secret"
"""

CANARY_REFERENCE = f"""
SECRET = "{SECRET}"


def answer():
    return SECRET
"""

CORRECT = f"def answer():\n    return {SECRET!r}\n"

CANARY_PROBLEM = {"hidden_tests": CANARY_HIDDEN_TESTS, "reference": CANARY_REFERENCE, "memory_limit_mb": 512}
# Submissions that must run out of time get a short limit, which keeps the suite fast. Every
# other one gets a limit far above what it needs on two busy cores (a fork bomb there takes
# seconds to reach the process limit, about one on an idle machine), so that no verdict
# depends on how busy the machine is. A call may take 20 s of it at most (Problem.sandbox_limits).
SHORT_TIME_LIMIT_S = 3
WIDE_TIME_LIMIT_S = 60

WA, RE, TLE, MLE, OLE, TAMPERED = (
    Verdict.WRONG_ANSWER,
    Verdict.RUNTIME_ERROR,
    Verdict.TIME_LIMIT_EXCEEDED,
    Verdict.MEMORY_LIMIT_EXCEEDED,
    Verdict.OUTPUT_LIMIT_EXCEEDED,
    Verdict.INTEGRITY_VIOLATION,
)

# Every path a submission might try for hidden data, from inside the sandbox.
ROOTS = [str(REPO_ROOT), "/tmp", "/opt", "/root", "/home", "/var", "/etc", "/run", "/srv", "/mnt"]


def grade(problem: Problem, code: str, pool: SandboxPool | None = None) -> Report:
    """Grade in a sandbox of its own, or in one forked from ``pool``'s fork servers (as workers do)."""
    source = SubmissionSource(textwrap.dedent(code).replace("ROOTS", repr(ROOTS)).replace("FOUND", repr(FOUND)), "s.py")
    if pool is None:
        return grade_submission(problem, source, backend=BwrapBackend())
    with pool.sandbox() as session:
        return grade_submission(problem, source, session=session)


def assert_hostile_submission_fails_safely(
    code: str, verdict: Verdict, *, canary: Problem, short_canary: Problem, pool: SandboxPool
) -> None:
    """Grade ``code`` against the canary, in a sandbox of its own and from ``pool``: ``verdict``
    both times, no secret and no unprintable text in the report, no process left over, and the
    next submission from the same pool graded normally."""
    pool.wait_ready()  # the pool's own processes all started before counting
    before = sandbox_processes()
    problem = short_canary if verdict == TLE else canary
    report = grade(problem, code)  # a sandbox started for it: nothing may outlive it
    assert report.verdict == verdict, report.summary()
    assert SECRET not in report.to_json()
    # Whatever it printed or raised, every text of the report is printable and encodes.
    for text in (report.summary(), report.to_json(), report.to_junit_xml(), report.output):
        assert all(char.isprintable() or char in "\n\t" for char in text), text
        text.encode("utf-8")
    ET.fromstring(report.to_junit_xml())
    assert sandbox_processes() <= before, "a process of the sandbox survived it"
    # Forked by a fork server, as workers grade: the same verdict, and the next submission
    # from the same pool (its fork server, unless it had to be discarded) is graded normally.
    assert grade(problem, code, pool).verdict == verdict
    assert grade(canary, CORRECT, pool).verdict == Verdict.ACCEPTED
