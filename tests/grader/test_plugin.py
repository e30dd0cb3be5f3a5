"""How a failing test becomes a verdict and a message."""

import pytest

from grader.plugin import explain_failure
from grader.proxy import SubmissionUnavailable, submission_exception
from grader.verdicts import Verdict
from sandbox.session import (
    SandboxCrashed,
    SandboxMemoryExceeded,
    SandboxOutputExceeded,
    SandboxProtocolError,
    SandboxStartFailed,
    SandboxTimeout,
)


@pytest.mark.parametrize(
    ("error", "verdict"),
    [
        (SandboxTimeout("t"), Verdict.TIME_LIMIT_EXCEEDED),
        (SandboxMemoryExceeded("m"), Verdict.MEMORY_LIMIT_EXCEEDED),
        (SandboxOutputExceeded("o"), Verdict.OUTPUT_LIMIT_EXCEEDED),
        (SandboxCrashed("c"), Verdict.RUNTIME_ERROR),
        (SandboxProtocolError("p"), Verdict.RUNTIME_ERROR),
        (SandboxStartFailed("s"), Verdict.INTERNAL_ERROR),
    ],
)
def test_a_sandbox_that_stopped_answering_gets_the_verdict_of_its_cause(error, verdict):
    assert explain_failure(SubmissionUnavailable(error))[0] == verdict


def test_exceptions_from_the_submission_are_runtime_errors_with_its_own_frames():
    trace = 'Traceback:\n  File "/opt/jaxjudge/sandbox/inside/runtime.py", line 9, in call\n    x\n'
    trace += '  File "s.py", line 3, in answer\n    return 1 / 0\n'
    verdict, message = explain_failure(submission_exception("ZeroDivisionError", "ZeroDivisionError", "no", trace))
    assert verdict == Verdict.RUNTIME_ERROR
    assert 'File "s.py", line 3' in message and "runtime.py" not in message


def test_memory_error_in_the_submission_is_memory_limit_exceeded():
    verdict, _ = explain_failure(submission_exception("MemoryError", "MemoryError", "", ""))
    assert verdict == Verdict.MEMORY_LIMIT_EXCEEDED


def test_an_assertion_keeps_the_authors_message_and_drops_pytests_rewrite():
    verdict, message = explain_failure(AssertionError("the sum is wrong\nassert 3 == 4"))
    assert (verdict, message) == (Verdict.WRONG_ANSWER, "the sum is wrong")


def test_a_failure_while_setting_up_is_the_problems_fault():
    assert explain_failure(KeyError("x"), during_setup=True)[0] == Verdict.INTERNAL_ERROR


def test_hypothesis_notes_never_reach_the_student():
    error = AssertionError("wrong")
    error.add_note("Falsifying example: test_x(\n    submission=submission,\n    x=Array([0.], dtype=float32),\n)")
    assert explain_failure(error)[1] == "wrong"


def test_of_several_distinct_failures_the_first_speaks():
    group = ExceptionGroup("Hypothesis found 2 distinct failures.", [AssertionError("first"), ValueError("second")])
    assert explain_failure(group) == (Verdict.WRONG_ANSWER, "first")


def test_a_bare_assert_shows_its_code_only_where_the_test_is_visible():
    rewritten = AssertionError("assert 3 == 4\n +  where 3 = len([1, 2, 3])")
    assert explain_failure(rewritten)[1] == "this check failed: assert 3 == 4"
    hidden = explain_failure(rewritten, hidden=True)[1]
    assert "assert" not in hidden and "3" not in hidden
