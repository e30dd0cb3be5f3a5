"""Every bundled problem: the reference is accepted, the starter and every wrong solution are not."""

import pytest

from grader.problem import load_problem
from grader.validate import validate_problem
from sandbox.backends import BwrapBackend


@pytest.mark.parametrize("slug", ["aot_compiled_sum", "compile_for", "jaxpr_primitives"])
def test_problem_validates_and_wrong_solutions_are_told_why(slug):
    problem = load_problem(slug)
    checks = validate_problem(problem, BwrapBackend())
    failures = [f"{c.label}: {c.verdict} ({c.detail})" for c in checks if not c.ok]
    assert failures == []
    labels = [c.label for c in checks]
    assert labels[:2] == ["reference", "starter"]
    assert len(labels) >= 5, "at least three known-wrong solutions"
    for check in checks[2:]:
        failed = [t for t in check.report.tests if t.outcome != "passed"]
        assert failed, check.label
        for test in failed:
            # A message for the student: not empty and not pytest's bare "assert x == y".
            assert test.message and not test.message.startswith("assert "), (check.label, test.message)
