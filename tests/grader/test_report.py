import json
import xml.etree.ElementTree as ET

import pytest

from grader.harness import grade_submission
from grader.problem import load_problem
from grader.report import REPORT_SCHEMA, Report, TestResult, hidden_failures, hidden_properties
from grader.source import SubmissionSource
from grader.verdicts import Verdict, worst
from sandbox.host.backends import BwrapBackend


def sample() -> Report:
    return Report(
        problem="p",
        verdict=Verdict.WRONG_ANSWER,
        score=50.0,
        max_score=100.0,
        tests=[
            TestResult("test_ok", "passed", 50.0, 50.0, "", False, 0.1),
            TestResult("test_bad", "failed", 0.0, 50.0, "your result is 2", True, 0.2, Verdict.WRONG_ANSWER),
        ],
    )


def test_json_has_the_documented_schema():
    data = json.loads(sample().to_json())
    assert data["schema"] == REPORT_SCHEMA == 3
    assert set(data) >= {"problem", "verdict", "score", "max_score", "tests", "duration_s", "sandbox"}
    assert data["tests"][1] == {
        "name": "test_bad",
        "outcome": "failed",
        "points": 0.0,
        "message": "your result is 2",
        "hidden": True,
        "duration_s": 0.2,
        "property": "",
        "failing_input": "",
        "failing_types": [],
    }


def test_junit_xml_counts_failures():
    suite = ET.fromstring(sample().to_junit_xml())
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    failure = suite.find("testcase[@name='test_bad']/failure")
    assert failure is not None and failure.text == "your result is 2"


def test_the_worst_verdict_wins():
    assert worst(set()) == Verdict.ACCEPTED
    assert worst({Verdict.WRONG_ANSWER, Verdict.TIME_LIMIT_EXCEEDED}) == Verdict.TIME_LIMIT_EXCEEDED
    assert worst({Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR}) == Verdict.RUNTIME_ERROR


def test_gradescope_results_keep_hidden_tests_until_published():
    results = sample().to_gradescope()
    assert results["score"] == 50.0
    bad = results["tests"][1]
    assert bad["status"] == "failed" and bad["max_score"] == 50.0 and bad["visibility"] == "after_published"
    assert results["tests"][0]["visibility"] == "visible"


HIDDEN = '''
import jax.numpy as jnp
from hypothesis import given

from grader import arrays, assert_same_array


@given(x=arrays(dtypes=("float32",), min_dims=1, max_dims=1, min_side=0, max_side=6))
def test_doubles_every_length(submission, reference, x):
    """Doubles a vector of any length, the empty one too."""
    assert_same_array(submission.double(x), reference.double(x))


def test_doubles_three(submission, reference):
    x = jnp.arange(3.0)
    assert_same_array(submission.double(x), reference.double(x))
'''


@pytest.mark.slow
def test_a_real_grading_tells_the_shape_a_wrong_answer_fails_on(make_problem):
    make_problem(
        "doubling", hidden_tests=HIDDEN, reference="def double(x):\n    return x * 2\n", entry_points=["double"]
    )
    # Right but for the empty vector, where it gives one element.
    wrong = "import jax.numpy as jnp\n\ndef double(x):\n    return x * 2 if x.size else jnp.ones(1, x.dtype)\n"
    report = grade_submission(
        load_problem("doubling"), SubmissionSource(wrong, "submission.py"), backend=BwrapBackend()
    )
    stored = json.loads(report.to_json())
    [failed] = [test for test in stored["tests"] if test["outcome"] != "passed"]
    assert failed["failing_types"] == ["x: float32[0]"]
    assert failed["failing_input"] == "double(x)\n  x = jnp.zeros((0,), dtype=jnp.float32)"
    assert hidden_failures(stored) == [["test_doubles_every_length", "x: float32[0]"]]
    assert hidden_properties(stored) == [
        ("test_doubles_every_length", "Doubles a vector of any length, the empty one too."),
        ("test_doubles_three", "Doubles three."),
    ]


def stored_test(**fields):
    return {"name": "test_x", "outcome": "failed", "hidden": True, "property": "P.", **fields}


def test_a_stored_report_s_hidden_failures_read_every_older_shape():
    schema_2 = stored_test(failing_input="f(x)\n  x = jnp.zeros((0,), dtype=jnp.float32)")
    older = stored_test()  # no failing input at all
    never_called = stored_test(failing_input="")
    visible = {**schema_2, "hidden": False}
    passed = stored_test(outcome="passed", name="test_y")
    report = {"tests": [schema_2, older, never_called, visible, passed]}
    assert hidden_failures(report) == [["test_x", "x: float32[0]"], ["test_x", "unknown"], ["test_x"]]
    assert hidden_failures({"tests": [passed]}) == []
    # No hidden test ran (a Run, or a grading that stopped before them): nothing to count.
    assert hidden_failures({"tests": [visible]}) is None
    assert hidden_failures({"message": "cancelled"}) is None
    assert hidden_failures(None) is None


def test_a_stored_report_is_read_as_hostile_text():
    hostile = stored_test(
        name="test_\x1b[2Jx" + "y" * 1000,
        property="Sums.\n=HYPERLINK()",
        failing_types=["x: float32[0]\u202e", 7, "z" * 500, *["w: int"] * 20],
    )
    report = {"tests": [hostile, "not a test", {"hidden": "yes", "outcome": "failed"}]}
    failures = hidden_failures(report)
    assert failures is not None
    [[name, *kinds]] = failures
    assert name.startswith("test_\\x1b[2Jx") and len(name) == 200
    assert kinds[:3] == ["x: float32[0]\\u202e", "", "z" * 79 + "…"] and len(kinds) == 8
    [(_, sentence)] = hidden_properties(report)
    assert sentence == "Sums. =HYPERLINK()"  # one line; the CSV writer quotes what a spreadsheet would run
