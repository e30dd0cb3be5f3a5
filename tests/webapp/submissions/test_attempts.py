"""Attempts: only the current one may grade, and a grading whose worker went silent is taken
over, up to a budget of interruptions that regrades do not spend."""

from __future__ import annotations

from typing import Any

import pytest
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from tests.webapp.support.submitting import ago, make_submission, task_of
from webapp import grading
from webapp.submissions.models import Progress, Submission
from webapp.submissions.models.worker import requeue_stalled

pytestmark = pytest.mark.django_db


def test_an_old_attempt_is_superseded_and_changes_nothing(catalog, student):
    submission = make_submission(student)
    submission.enqueue()
    submission.enqueue()
    before = Submission.objects.filter(pk=submission.pk).values().get()

    assert Submission.grade_attempt(submission.pk, 1) == "superseded"

    assert Submission.objects.filter(pk=submission.pk).values().get() == before
    assert before["attempt"] == 2 and before["status"] == "queued"


def test_a_verdict_from_an_attempt_taken_over_during_grading_is_dropped(catalog, student, monkeypatch):
    submission = make_submission(student)
    submission.enqueue()

    def graded_while_taken_over(slug: str, code: str, *, include_hidden: bool, **_: Any) -> dict[str, Any]:
        submission.enqueue()  # another worker gave the submission a new attempt meanwhile
        return {"verdict": "accepted", "score": 100.0, "max_score": 100.0, "tests": []}

    monkeypatch.setattr(grading, "grade_code", graded_while_taken_over)

    assert Submission.grade_attempt(submission.pk, 1) == "superseded"

    submission.refresh_from_db()
    assert (submission.status, submission.attempt, submission.verdict) == ("queued", 2, "")
    assert not Progress.objects.filter(user=student, solved_at__isnull=False).exists()


def stall(submission: Submission, *, heartbeat_age_s: float) -> str:
    """Make ``submission`` look as if a worker took its task and then went silent; its task id."""
    task = task_of(submission)
    DBTaskResult.objects.filter(id=task.id).update(status=TaskResultStatus.RUNNING, started_at=ago(heartbeat_age_s))
    Submission.objects.filter(pk=submission.pk).update(
        status=Submission.Status.RUNNING,
        worker="lost:1",
        started_at=ago(heartbeat_age_s),
        heartbeat_at=ago(heartbeat_age_s),
    )
    return str(task.id)


def test_a_running_submission_whose_heartbeat_stopped_is_queued_again(catalog, student, settings):
    settings.STALLED_AFTER_S = 30
    submission = make_submission(student)
    submission.enqueue()
    old_task = stall(submission, heartbeat_age_s=31)

    assert requeue_stalled() == [submission.pk]

    submission.refresh_from_db()
    assert (submission.status, submission.attempt, submission.worker) == ("queued", 2, "")
    assert submission.task_id != old_task
    assert DBTaskResult.objects.get(id=old_task).status == TaskResultStatus.FAILED
    new_task = task_of(submission)
    assert new_task.status == TaskResultStatus.READY
    assert new_task.args_kwargs["args"] == [submission.pk, 2]
    # Taken back once only.
    assert requeue_stalled() == []


def test_live_gradings_and_tasks_still_waiting_in_the_queue_are_left_alone(catalog, student, settings):
    settings.STALLED_AFTER_S = 30
    running = make_submission(student)
    running.enqueue()
    stall(running, heartbeat_age_s=300)
    Submission.objects.filter(pk=running.pk).update(heartbeat_at=ago(5))  # a long grading, still beating
    waiting = make_submission(student)
    waiting.enqueue()
    DBTaskResult.objects.filter(id=task_of(waiting).id).update(enqueued_at=ago(300))  # a long queue

    assert requeue_stalled() == []

    assert Submission.objects.get(pk=running.pk).attempt == 1
    assert Submission.objects.get(pk=waiting.pk).attempt == 1
    assert task_of(running).status == TaskResultStatus.RUNNING


def test_a_grading_interrupted_max_interruptions_times_fails_with_a_message(catalog, student, settings):
    settings.STALLED_AFTER_S = 30
    submission = make_submission(student)
    submission.enqueue()
    for interrupted in range(1, Submission.MAX_INTERRUPTIONS):
        stall(submission, heartbeat_age_s=60)
        assert requeue_stalled() == [submission.pk]
        submission.refresh_from_db()
        assert (submission.status, submission.interruptions) == ("queued", interrupted)
    tasks = DBTaskResult.objects.count()
    stall(submission, heartbeat_age_s=60)

    assert requeue_stalled() == []

    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert submission.attempt == Submission.MAX_INTERRUPTIONS
    assert submission.interruptions == Submission.MAX_INTERRUPTIONS
    assert submission.finished_at is not None
    assert submission.report is not None
    assert f"interrupted {Submission.MAX_INTERRUPTIONS} times" in submission.report["message"]
    assert DBTaskResult.objects.count() == tasks
    assert task_of(submission).status == TaskResultStatus.FAILED


def test_regrades_do_not_spend_the_interruption_budget(catalog, student, settings):
    settings.STALLED_AFTER_S = 30
    submission = make_submission(student)
    for _ in range(Submission.MAX_INTERRUPTIONS + 1):  # graded, then regraded again and again
        submission.enqueue()
    stall(submission, heartbeat_age_s=60)

    assert requeue_stalled() == [submission.pk]  # its first interruption: graded again

    submission.refresh_from_db()
    assert (submission.status, submission.attempt, submission.interruptions) == (
        "queued",
        Submission.MAX_INTERRUPTIONS + 2,
        1,
    )
    submission.enqueue()  # a regrade starts with the whole budget
    assert Submission.objects.get(pk=submission.pk).interruptions == 0


def test_a_queued_submission_whose_worker_died_after_taking_its_task_is_queued_again(catalog, student, settings):
    settings.STALLED_AFTER_S = 30
    submission = make_submission(student)
    submission.enqueue()
    old_task = task_of(submission).id
    # The worker marked the task running, then died before claiming the submission.
    DBTaskResult.objects.filter(id=old_task).update(status=TaskResultStatus.RUNNING, started_at=ago(31))

    assert requeue_stalled() == [submission.pk]

    submission.refresh_from_db()
    assert (submission.status, submission.attempt) == ("queued", 2)
    assert DBTaskResult.objects.get(id=old_task).status == TaskResultStatus.FAILED
    assert task_of(submission).args_kwargs["args"] == [submission.pk, 2]
