"""Scores to the platform's gradebook: what a hand-in, an override or a new deadline sends, sent
again when refused, only to the course the student is in, and recorded for good."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from lti_tool.models import LtiDeployment

from grader.problem import load_problem
from tests.webapp.support.lti_claims import (
    AGS,
    CONTEXT,
)
from tests.webapp.support.lti_course import (
    ALICE,
    SAM,
    browser,
    hand_in,
    launched_student,
    run_lti_tasks,
)
from webapp.catalog.models import Problem
from webapp.courses.models import Assignment, AssignmentProblem, Extension, Override
from webapp.lti.models import AssignmentLink, CourseLink, ScorePublication
from webapp.submissions.models import Submission
from webapp.submissions.signals import graded

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_graded_submit_sends_the_student_s_points_on_the_assignment_to_its_line_item(platform):
    _, student = launched_student(platform)

    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0))
    ran = run_lti_tasks()

    assert [result.status for result in ran] == ["SUCCESSFUL"], [result.traceback for result in ran]
    (sent,) = platform.scores
    assert sent["line_item"] == platform.line_item_url(1).split("?")[0].removeprefix(platform.base_url)
    score = sent["score"]
    assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == (SAM.sub, 10.0, 15.0)
    assert (score["activityProgress"], score["gradingProgress"]) == ("Submitted", "FullyGraded")
    assert score["timestamp"].endswith("+00:00")
    assert ScorePublication.objects.get().status == ScorePublication.Status.SENT


def test_a_run_sends_nothing_and_an_override_sends_the_new_total(canvas):
    course, student = launched_student(canvas)
    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0, Submission.Kind.RUN))
    assert run_lti_tasks() == []

    item = course.assignments.get().items.get(problem__slug="batched_dot")
    Override.objects.create(item=item, user=student, points=3, reason="a regrade by hand")
    run_lti_tasks()

    (sent,) = canvas.scores
    assert (sent["score"]["scoreGiven"], sent["score"]["scoreMaximum"]) == (3.0, 15.0)


def test_an_extension_a_new_deadline_or_new_points_send_the_new_standing(canvas):
    course, student = launched_student(canvas)
    assignment = course.assignments.get()
    assignment.due_at = timezone.now() - timedelta(days=1)
    assignment.late_policy = Assignment.LatePolicy.HARD_CLOSE
    assignment.save()  # the deadline moved: every student's standing is sent again
    late = hand_in(student, "aot_compiled_sum", 1.0)  # handed in now: after the close
    graded.send(sender=Submission, submission=late)
    run_lti_tasks()
    assert canvas.scores[-1]["score"]["scoreGiven"] == 0.0

    extension = Extension.objects.create(
        assignment=assignment, user=student, due_at=timezone.now() + timedelta(days=1), reason="ill"
    )
    run_lti_tasks()
    assert canvas.scores[-1]["score"]["scoreGiven"] == 10.0  # on time under the extension

    item = assignment.items.get(problem__slug="aot_compiled_sum")
    item.points = 20
    item.save()
    run_lti_tasks()
    assert (canvas.scores[-1]["score"]["scoreGiven"], canvas.scores[-1]["score"]["scoreMaximum"]) == (20.0, 25.0)

    extension.delete()
    run_lti_tasks()
    assert canvas.scores[-1]["score"]["scoreGiven"] == 0.0


def test_a_platform_that_refuses_a_score_gets_it_again_later(canvas):
    _, student = launched_student(canvas)
    canvas.tokens.clear()
    original = canvas.serve_token
    canvas.serve_token = lambda **_: (503, {"Content-Type": "text/plain"}, b"down")

    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 0.5))
    run_lti_tasks()

    publication = ScorePublication.objects.get()
    assert (publication.status, publication.tries) == (ScorePublication.Status.RETRYING, 1)
    retry = DBTaskResult.objects.get(task_path="webapp.lti.tasks.send_scores", status="READY")
    assert retry.args_kwargs["args"][2] == 2 and retry.run_after > timezone.now()
    canvas.serve_token = original
    DBTaskResult.objects.filter(pk=retry.pk).update(run_after=timezone.now())
    run_lti_tasks()
    assert canvas.scores[-1]["score"]["scoreGiven"] == 5.0
    assert ScorePublication.objects.get().status == ScorePublication.Status.SENT


@pytest.mark.slow
def test_a_real_grading_sends_the_score_to_the_platform(canvas, sandboxes):
    """Through Submission.grade_attempt: needs its ``graded.send`` (see webapp/submissions/signals.py)."""
    _, student = launched_student(canvas)
    reference = load_problem("aot_compiled_sum").reference_solution.read_text()
    submission = Submission.objects.create(
        user=student,
        problem=Problem.objects.get(slug="aot_compiled_sum"),
        kind=Submission.Kind.SUBMIT,
        code=reference,
    )
    submission.enqueue()
    Submission.grade_attempt(submission.pk, submission.attempt)
    submission.refresh_from_db()
    assert submission.verdict == "accepted"

    run_lti_tasks()

    assert [sent["score"]["scoreGiven"] for sent in canvas.scores] == [10.0]


# Scores only for the course's own students (attack 5)


def in_another_course(claims: dict[str, Any]) -> None:
    claims[CONTEXT] = {"id": "another-course", "title": "Another course"}
    claims[AGS]["lineitem"] = (
        claims[AGS]["lineitem"].replace("/line_items/1", "/line_items/2").replace("/lineitems/1/", "/lineitems/2/")
    )


def test_a_score_goes_only_to_the_course_the_student_is_in(platform):
    _, student = launched_student(platform)
    # Another course on the same platform, with an assignment of the same problem.
    assert platform.launch(browser(), ALICE, tamper=in_another_course).status_code == 302
    other = CourseLink.objects.get(context__id_on_platform="another-course").course
    now = timezone.now()
    theirs = Assignment.objects.create(
        course=other, slug="theirs", title="Theirs", release_at=now - timedelta(days=1), due_at=now + timedelta(days=1)
    )
    AssignmentProblem.objects.create(assignment=theirs, problem=Problem.objects.get(slug="aot_compiled_sum"), points=7)
    answer = platform.launch(browser(), ALICE, tamper=in_another_course, custom={"jaxjudge_assignment": "theirs"})
    assert answer.status_code == 302
    assert AssignmentLink.objects.get(assignment=theirs).line_item_url == platform.line_item_url(2)
    run_lti_tasks()

    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0))
    run_lti_tasks()
    # Queued by hand too: the task itself sends nothing for a course they are not a student of.
    from webapp.lti.tasks import send_scores

    send_scores.enqueue(theirs.pk, student.pk)
    run_lti_tasks()

    sent_to = {sent["line_item"] for sent in platform.scores}
    assert sent_to == {platform.line_item_url(1).split("?")[0].removeprefix(platform.base_url)}
    assert not ScorePublication.objects.filter(assignment_link__assignment=theirs).exists()

    # Joined here by the course's invite link, not from that platform course: still nothing
    # goes to it (the platform learns only about people who came from it).
    other.join(student)
    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0))
    send_scores.enqueue(theirs.pk, student.pk)
    run_lti_tasks()
    assert {sent["line_item"] for sent in platform.scores} == sent_to
    assert not ScorePublication.objects.filter(assignment_link__assignment=theirs).exists()


# Records that last (item 5)


def test_a_score_record_outlives_the_assignment_and_the_registration_it_was_sent_through(canvas):
    course, student = launched_student(canvas)
    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0))
    run_lti_tasks()

    course.assignments.get().delete()
    LtiDeployment.objects.get(deployment_id=canvas.deployment_id).registration.delete()

    publication = ScorePublication.objects.get()
    assert publication.assignment_link is None and publication.platform_account is None
    assert (publication.score_given, publication.status) == (10.0, ScorePublication.Status.SENT)
    assert publication.line_item_url == canvas.line_item_url(1)
    assert publication.assignment_title.startswith("Week 1: tracing")
    assert publication.platform_user.startswith(SAM.sub) and canvas.client_id in publication.platform_user
