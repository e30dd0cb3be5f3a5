"""How a failing test becomes a verdict and a message."""

import time

import hypothesis
import pytest
from hypothesis import strategies as st

from grader.plugin import explain_failure, shrinking_bounded_to
from grader.submission_exceptions import SubmissionUnavailable, submission_exception
from grader.verdicts import Verdict
from sandbox.host.session import (
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


def property_that_always_fails(calls: list[int], seconds_per_call: float):
    @hypothesis.settings(max_examples=5, database=None, derandomize=True, deadline=None)
    @hypothesis.given(st.lists(st.floats(-1000, 1000), min_size=1, max_size=8), st.integers(0, 2**30))
    def always_fails(values, n):
        calls.append(n)
        time.sleep(seconds_per_call)
        raise AssertionError("wrong")

    return always_fails


def test_shrinking_stops_after_its_time_bound():
    calls: list[int] = []
    started = time.perf_counter()
    with shrinking_bounded_to(0.25), pytest.raises(AssertionError):
        property_that_always_fails(calls, 0.02)()
    elapsed = time.perf_counter() - started
    # A failing call, 0.25 s of shrinking at 0.02 s a call, then the failing example once more.
    assert elapsed < 2.0 and len(calls) < 40, (elapsed, len(calls))
    assert calls[-1] < max(calls), "the failing example was not shrunk at all"


@pytest.mark.slow
def test_unbounded_shrinking_calls_the_test_far_more_often():
    # The control for the test above: without the bound, the same property is shrunk with
    # hundreds of calls (at 0.02 s a call, seconds; at a compile a call, much longer).
    calls: list[int] = []
    with pytest.raises(AssertionError):
        property_that_always_fails(calls, 0.0)()
    assert len(calls) >= 200
