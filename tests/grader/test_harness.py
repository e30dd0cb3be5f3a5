"""The harness end to end on throwaway problems: scoring, determinism, instructor mistakes."""

import pytest

from grader.harness import grade_submission
from grader.problem import ReferenceSolutionError, load_problem
from grader.source import SubmissionSource
from sandbox.backends import BwrapBackend

HIDDEN = """
import jax.numpy as jnp
from hypothesis import given

from grader import arrays, assert_same_array


@given(x=arrays(dtypes=("float32",), max_side=8))
def test_doubles(submission, reference, x):
    assert_same_array(submission.double(x), reference.double(x))


@pytest.mark.points(3)
def test_doubles_zero(submission, reference):
    x = jnp.zeros(3)
    assert_same_array(submission.double(x), reference.double(x))
""".replace("import jax.numpy", "import pytest\nimport jax.numpy")

VISIBLE = """
import jax.numpy as jnp

from grader import assert_same_array


def test_doubles_one(submission):
    assert_same_array(submission.double(jnp.ones(1)), jnp.full(1, 2.0))
"""

REFERENCE = "def double(x):\n    return x * 2\n"


@pytest.fixture
def doubling(make_problem):
    make_problem("doubling", hidden_tests=HIDDEN, visible_tests=VISIBLE, reference=REFERENCE, entry_points=["double"])
    return load_problem("doubling")


def grade(problem, code, **kwargs):
    return grade_submission(problem, SubmissionSource(code, "submission.py"), backend=BwrapBackend(), **kwargs)


def test_points_follow_the_weights(doubling):
    report = grade(doubling, "def double(x):\n    return x * 2 + (x.size == 3) * 1.0\n")
    by_name = {t.name: t for t in report.tests}
    assert by_name["test_doubles_zero"].max_points == 60.0  # 3 of the 5 weight units
    assert by_name["test_doubles_zero"].points == 0.0
    assert by_name["test_doubles_one"].points == 20.0  # passed: 1 of the 5 units
    assert report.score == sum(t.points for t in report.tests) and report.max_score == 100.0
    assert report.verdict == "wrong_answer"


def test_the_same_submission_meets_the_same_examples(doubling):
    wrong = "def double(x):\n    return x * 2 + (x.size > 4)\n"
    first, second = grade(doubling, wrong), grade(doubling, wrong)
    messages = [t.message for t in first.tests]
    assert "Falsifying example" in "".join(messages) or "x=" in "".join(messages)
    assert messages == [t.message for t in second.tests]


def test_failing_examples_are_shrunk(doubling):
    report = grade(doubling, "def double(x):\n    return x * 2 + (x.size > 4)\n")
    [failed] = [t for t in report.tests if t.name == "test_doubles"]
    # The smallest failing input has exactly five zeros.
    assert "Array([0., 0., 0., 0., 0.], dtype=float32)" in failed.message


def test_visible_only_skips_hidden_tests(doubling):
    report = grade(doubling, REFERENCE, include_hidden=False)
    assert [t.name for t in report.tests] == ["test_doubles_one"]
    assert report.verdict == "accepted"


def test_an_error_while_loading_is_a_runtime_error_with_the_line(doubling):
    report = grade(doubling, "def double(x):\n    return x\n\nraise ValueError('oops')\n")
    assert report.verdict == "runtime_error"
    assert "ValueError: oops" in report.message and "line 4" in report.message


def test_a_missing_reference_is_an_instructors_error(make_problem, problem_root):
    make_problem("orphan", hidden_tests="def test_x(submission):\n    pass\n", reference="")
    (problem_root / "solutions" / "orphan" / "reference.py").unlink()
    with pytest.raises(ReferenceSolutionError, match="no reference solution"):
        grade(load_problem("orphan"), "def answer():\n    return 1\n")
