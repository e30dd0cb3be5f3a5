import json
import xml.etree.ElementTree as ET

from grader.report import Report, TestResult
from grader.verdicts import Verdict, worst


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
    assert data["schema"] == 2
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
