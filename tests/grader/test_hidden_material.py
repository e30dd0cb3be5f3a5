"""Nothing computed from a hidden test's inputs or objects reaches the student.

The sandbox sees every hidden input and every function a hidden test sends it; the student's
code can read them from its callers' frames and hand them back in whatever the harness shows:
an exception's text, its traceback, the insight's artifacts. Tried for real in bwrap.
"""

import json

import pytest

from grader.harness import grade_submission
from grader.problem import load_problem
from grader.source import SubmissionSource
from grader.verdicts import Verdict
from sandbox.host.backends import BwrapBackend

HIDDEN_CODE, HIDDEN_VALUE = "HIDDEN-CANARY-CODE", "4242.5"

VISIBLE_TESTS = """
from grader import PortableFunction


def test_applies_a_visible_function(submission):
    assert submission.apply(PortableFunction("def f(x):\\n    return x + 1\\n"), 1.0) == 2.0
"""
HIDDEN_TESTS = f"""
from grader import PortableFunction


def test_applies_a_hidden_function(submission):
    f = PortableFunction("def f(x):\\n    # {HIDDEN_CODE}\\n    return x * 3\\n")
    assert submission.apply(f, 2.0) == 6.0


def test_applies_to_a_hidden_number(submission):
    assert submission.apply(PortableFunction("def f(x):\\n    return x\\n"), {HIDDEN_VALUE}) == {HIDDEN_VALUE}
"""

# Collects everything its callers hold, and says it in every way a failure is shown.
SNOOP = """
import sys

SEEN = []


class Leak(ValueError):
    pass


def apply(f, x):
    frame = sys._getframe(1)
    while frame is not None:
        SEEN.append(repr(frame.f_locals)[:20000])
        frame = frame.f_back
    SEEN.append(repr(x))
    said = " | ".join(SEEN)[-60000:]
    Leak.__name__ = Leak.__qualname__ = "Leak_" + "".join(ch for ch in said if ch.isalnum())[-150:]
    raise Leak(said)
"""


@pytest.fixture
def snooping_report(make_problem):
    make_problem(
        "snooped",
        visible_tests=VISIBLE_TESTS,
        hidden_tests=HIDDEN_TESTS,
        reference="def apply(f, x):\n    return f(x)\n",
        entry_points=("apply",),
    )
    return grade_submission(load_problem("snooped"), SubmissionSource(SNOOP, "snoop.py"), backend=BwrapBackend())


def test_the_snooping_code_really_sees_the_hidden_material(snooping_report):
    # Staff see what it printed and raised under hidden tests nowhere but in hidden_output;
    # here the proof that the attack reads what it should not: the message of its visible test.
    visible = next(test for test in snooping_report.tests if not test.hidden)
    assert "x + 1" in visible.message


def test_hidden_failures_say_the_builtin_type_only(snooping_report):
    hidden = [test for test in snooping_report.tests if test.hidden]
    assert len(hidden) == 2
    for test in hidden:
        assert test.verdict == Verdict.RUNTIME_ERROR
        assert test.message.startswith("your code raised ValueError on this hidden test's input"), test.message


def test_no_hidden_code_or_value_reaches_the_student(snooping_report):
    shown = [
        snooping_report.message,
        snooping_report.output,
        json.dumps(snooping_report.insight),
        *(test.message for test in snooping_report.tests),
    ]
    for text in shown:
        assert HIDDEN_CODE not in text
        assert HIDDEN_VALUE not in text
        assert "Leak_" not in text or "4242" not in text
