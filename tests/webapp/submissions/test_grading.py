"""Grading, for real: in this process, in the bwrap sandbox, with JAX. Verdicts and scores, the
status as tests end, hostile text in a report, and hidden-test output for staff only."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from grader.problem import load_problem, solutions_dir
from tests.webapp.support.submitting import SLUG, SOME_CODE, grade, make_submission, post
from webapp import grading
from webapp.courses.instructors import make_instructor
from webapp.submissions.models import Progress, Submission

pytestmark = pytest.mark.django_db


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_reference_solution_is_accepted_and_solves_the_problem(catalog, student, sandboxes):
    reference = load_problem(SLUG).reference_solution.read_text()

    submission = grade(student, Submission.Kind.SUBMIT, reference)

    assert (submission.status, submission.verdict) == ("graded", "accepted")
    assert submission.score == submission.max_score == 100.0
    assert submission.report is not None and submission.report["tests"]
    assert all(test["outcome"] == "passed" for test in submission.report["tests"])
    assert any(test["hidden"] for test in submission.report["tests"])
    assert submission.finished_at is not None and submission.heartbeat_at is None
    assert Progress.objects.get(user=student, problem__slug=SLUG).solved_at == submission.created_at


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_wrong_solution_gets_wrong_answer_with_the_failing_tests(catalog, student, sandboxes):
    wrong = (solutions_dir() / SLUG / "wrong_value.py").read_text()

    submission = grade(student, Submission.Kind.SUBMIT, wrong)

    assert (submission.status, submission.verdict) == ("graded", "wrong_answer")
    assert submission.report is not None
    assert any(test["outcome"] == "failed" for test in submission.report["tests"])
    assert submission.score is not None and submission.score < 100.0
    assert Progress.objects.get(user=student, problem__slug=SLUG).solved_at is None


@pytest.mark.django_db(transaction=True)
def test_a_run_is_graded_on_the_visible_tests_only_and_solves_nothing(catalog, student, sandboxes):
    reference = load_problem(SLUG).reference_solution.read_text()

    submission = grade(student, Submission.Kind.RUN, reference)

    assert (submission.status, submission.verdict) == ("graded", "accepted")
    assert submission.report is not None and submission.report["tests"]
    assert [test["hidden"] for test in submission.report["tests"]] == [False] * len(submission.report["tests"])
    assert Progress.objects.get(user=student, problem__slug=SLUG).solved_at is None


@pytest.mark.django_db(transaction=True)
def test_while_graded_the_status_says_which_tests_have_ended_and_only_what_changed(
    client, catalog, student, sandboxes, monkeypatch
):
    # A real grading, watched as the page watches it: the status is asked for at each test's end.
    client.force_login(student)
    wrong = (solutions_dir() / SLUG / "wrong_value.py").read_text()
    submission = make_submission(student, Submission.Kind.SUBMIT, code=wrong)
    submission.enqueue()
    url = reverse("submissions:status", args=[submission.pk])
    polls: list[dict[str, Any]] = []
    grade_code = grading.grade_code

    def watched(*args: Any, on_test: Any, **kwargs: Any) -> dict[str, Any]:
        def ended(test: dict[str, Any]) -> None:
            on_test(test)
            shown = polls[-1]["tests_ended"] if polls else 0
            polls.append(client.get(url, {"since": shown}).json())

        return grade_code(*args, on_test=ended, **kwargs)

    monkeypatch.setattr(grading, "grade_code", watched)
    Submission.grade_attempt(submission.pk, submission.attempt)

    report = Submission.objects.get(pk=submission.pk).report
    assert report is not None and len(polls) == len(report["tests"]) > 1
    for count, poll in enumerate(polls, start=1):
        # Each poll carries the one test that ended since the one before, never the whole result.
        assert poll["status"] == "running" and not poll["finished"] and poll["tests_ended"] == count
        assert set(poll) == {"id", "status", "finished", "tests_ended", "tests"} and len(poll["tests"]) == 1
    ended = [poll["tests"][0] for poll in polls]
    assert [(t["name"], t["outcome"], t["hidden"]) for t in ended] == [
        (t["name"], t["outcome"], t["hidden"]) for t in report["tests"]
    ]
    assert [t["hidden"] for t in ended] == sorted(t["hidden"] for t in ended)  # visible tests first
    assert all("points" not in t for t in ended)  # scored only once all have ended
    assert any(t["outcome"] == "failed" and t["message"] for t in ended)
    # Once finished, the status is the whole result, rendered, whatever the page had seen.
    final = client.get(url, {"since": len(polls)}).json()
    assert final["finished"] and final["verdict"] == "wrong_answer" and "html" in final


def test_the_status_of_a_queued_submission_asked_for_changes_is_small(student_client, student):
    data = post(student_client, "submit", SOME_CODE).json()
    for since in ("0", "5"):
        assert student_client.get(data["status_url"], {"since": since}).json() == {
            "id": data["id"],
            "status": "queued",
            "finished": False,
            "tests_ended": 0,
            "tests": [],
        }
    # Anything but a count of tests gets the whole state, as without it.
    for not_a_count in ("²", "9" * 5000):
        assert "html" in student_client.get(data["status_url"], {"since": not_a_count}).json()


HOSTILE_TEXT = "\\x1b[2J\\ud800\\u202e"


@pytest.mark.django_db(transaction=True)
def test_hostile_text_in_a_report_is_shown_escaped_not_as_a_server_error(client, catalog, student, sandboxes):
    code = f"print({HOSTILE_TEXT!r})\ndef aot_compiled_sum(x):\n    raise ValueError({HOSTILE_TEXT!r})\n"

    submission = grade(student, Submission.Kind.SUBMIT, code)

    assert (submission.status, submission.verdict) == ("graded", "runtime_error")
    client.force_login(student)
    page = client.get(reverse("submissions:detail", args=[submission.pk]))
    status = client.get(reverse("submissions:status", args=[submission.pk]))
    assert page.status_code == status.status_code == 200
    text = page.content.decode()
    assert "\\x1b[2J\\ud800\\u202e" in text and "\x1b" not in text


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_output_of_hidden_tests_is_shown_to_staff_only(client, catalog, student, django_user_model, sandboxes):
    code = (
        "import jax\nprint('VISIBLE-MARK')\n\n"
        "def aot_compiled_sum(x):\n    print('CALLED-ON', x.shape)\n"
        "    return jax.jit(jax.numpy.sum).lower(x).compile()(x)\n"
    )
    submission = grade(student, Submission.Kind.SUBMIT, code)
    assert submission.verdict == "accepted"
    assert submission.report is not None and "CALLED-ON (1031,)" in submission.report["hidden_output"]
    pages = [reverse("submissions:detail", args=[submission.pk]), reverse("submissions:status", args=[submission.pk])]

    client.force_login(student)
    for url in pages:
        text = client.get(url).content.decode()
        assert "VISIBLE-MARK" in text and "CALLED-ON (5,)" in text  # printed by a visible test
        assert "(1031,)" not in text and "hidden-output" not in text  # the hidden test's own length

    # An instructor's own submission shows them no more than a student's does.
    instructor = django_user_model.objects.create_user("grace", password="a-long-password-4")
    make_instructor(instructor)
    theirs = grade(instructor, Submission.Kind.SUBMIT, code)
    client.force_login(instructor)
    for url in (reverse("submissions:detail", args=[theirs.pk]), reverse("catalog:detail", args=[SLUG])):
        text = client.get(url).content.decode()
        assert "CALLED-ON (1031,)" not in text and "hidden-output" not in text, url

    client.force_login(django_user_model.objects.create_superuser("root", password="a-long-password-3"))
    for url in pages:
        text = client.get(url).content.decode()
        assert "CALLED-ON (1031,)" in text and "hidden-output" in text
