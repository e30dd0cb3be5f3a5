"""A result as the student reads it (``_result.html`` with the ``test_outcomes`` filters): the
verdict with the count of failures said once, the failures in the order they ran with only the
first open, then the passes folded; a Cancel as one line."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string

from webapp.submissions.templatetags.test_outcomes import failing, passing


def a_test(name: str, outcome: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "outcome": outcome, "points": 1.0, "message": "", "hidden": False, "property": "", **more}


TESTS = [
    a_test("test_small", "passed", property="Sums a small vector."),
    a_test("test_empty", "failed", property="Sums an empty array.", message="got nan, but 0.0 was expected " * 8),
    a_test("test_shapes", "error", hidden=True, property="Sums every shape.", failing_input="x = jnp.zeros(())"),
    a_test("test_big", "passed"),
]


def rendered(**state: Any) -> str:
    result = {"status": "graded", "finished": True, "verdict": "wrong_answer", "verdict_label": "Wrong answer"}
    return render_to_string("submissions/_result.html", {"result": {**result, **state}})


def test_failures_are_kept_in_the_order_they_ran_and_passes_after() -> None:
    assert [t["name"] for t in failing(TESTS)] == ["test_empty", "test_shapes"]
    assert [t["name"] for t in passing(TESTS)] == ["test_small", "test_big"]
    # What is not a test (a hostile report's junk) is neither.
    assert failing([None, "x", 3]) == [] and passing(None) == []


def test_the_verdict_then_the_failures_the_first_open_then_the_passes_folded() -> None:
    html = rendered(score=2, max_score=4, message="2 of 4 tests failed (1 visible, 1 hidden).", tests=TESTS)
    assert "{#" not in html and "comment" not in html  # no template comment shown
    verdict, failures, passes = (
        html.index('data-testid="verdict"'),
        html.index('data-testid="failures"'),
        html.index('data-testid="passes"'),
    )
    assert verdict < failures < passes
    assert html.index("Sums an empty array.") < html.index("Sums every shape.") < html.index("Sums a small vector.")
    # The first failure open, the second closed; the passes folded.
    assert html.count('<details class="failure" open') == 1
    assert html.index('<details class="failure" open') < html.index("Sums an empty array.")
    assert '<details class="passes" data-testid="passes">' in html
    # The count of failures said once, on the verdict's line; the whole message of a failure.
    assert html.count("2 of 4 tests failed") == 1
    assert html.count("got nan, but 0.0 was expected") == 8
    assert "raised an error" in html and "hidden test" in html and "x = jnp.zeros(())" in html


def test_all_passed_and_a_cancel_read_as_one_line() -> None:
    html = rendered(verdict="accepted", verdict_label="Accepted", score=4, max_score=4, message="", tests=TESTS[::3])
    assert "all 2 tests passed" in html and 'data-testid="failures"' not in html
    cancelled = rendered(status="cancelled", verdict="", verdict_label="", message="Cancelled after 4.0 s.", tests=[])
    assert "Cancelled after 4.0 s." in cancelled and cancelled.count("Cancelled") == 1
