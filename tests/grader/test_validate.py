"""Every bundled problem: the reference is accepted, the starter and every wrong solution are
not, and the notebook runs under nbclient. All problems are validated once, in parallel."""

import copy
import dataclasses

import nbformat
import pytest

from grader.problem import all_problems, load_problem, problems_dir
from grader.validate import notebook_check, validated

SLUGS = sorted(path.stem for path in problems_dir().glob("*.ipynb"))


@pytest.fixture(scope="module")
def checks_by_problem():
    problems = all_problems()
    return {problem.slug: checks for problem, checks in zip(problems, validated(problems), strict=True)}


@pytest.mark.parametrize("slug", SLUGS)
def test_problem_validates_and_wrong_solutions_are_told_why(checks_by_problem, slug):
    checks = checks_by_problem[slug]
    failures = [f"{c.label}: {c.verdict} ({c.detail})" for c in checks if not c.ok]
    assert failures == []
    labels = [c.label for c in checks]
    assert labels[:2] == ["reference", "starter"] and labels[-1] == "notebook"
    wrong = [c for c in checks if c.label.startswith("wrong_")]
    assert len(wrong) >= 3, "at least three known-wrong solutions"
    for check in wrong:
        failed = [t for t in check.report.tests if t.outcome != "passed"]
        assert failed, check.label
        for test in failed:
            # A message for the student: not empty and not pytest's bare "assert x == y".
            assert test.message and not test.message.startswith("assert "), (check.label, test.message)


def test_a_notebook_that_does_not_run_is_reported_with_its_cell():
    problem = load_problem("compile_for")
    notebook = copy.deepcopy(problem.notebook)
    broken = nbformat.v4.new_code_cell(
        "import jax\nraise ValueError('a broken example')", metadata={"tags": ["example"]}
    )
    notebook.cells.insert(2, broken)
    check = notebook_check(dataclasses.replace(problem, notebook=notebook))
    assert not check.ok and check.label == "notebook"
    assert "compile_for.ipynb: cell 2 failed under nbclient: ValueError: a broken example" in check.detail
