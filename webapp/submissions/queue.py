"""Handing submissions to workers, grading them there, and taking them back from dead workers.

Every hand-over is an *attempt*, numbered on the submission. A worker starts an attempt only
if it is still the current one, keeps a heartbeat while grading, and writes its verdict only
if the attempt is still current. When a worker dies (SIGKILL, a lost machine) its heartbeat
stops; any worker then gives the submission a new attempt, so it is graded again and ends
with exactly one verdict.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from webapp import grading
from webapp.submissions.models import Progress, Submission

logger = logging.getLogger(__name__)

# After its grading was interrupted this many times the platform gives up and says so.
# Only interruptions count: a regrade or a resubmission starts with a full budget.
MAX_INTERRUPTIONS = 3
HEARTBEAT_S = 2.0
WORKER_NAME = f"{socket.gethostname()}:{os.getpid()}"


def queue_for(submission: Submission) -> str:
    """GPU problems are graded by GPU workers, on a queue of their own."""
    return "gpu" if submission.problem.device == "gpu" else "default"


def enqueue(submission: Submission, *, after_interruption: bool = False) -> None:
    """Start a new attempt at ``submission`` (any earlier result is cleared) and queue it.

    ``after_interruption``: its worker died mid-grading, which counts towards
    ``MAX_INTERRUPTIONS``; any other new attempt (a submission, a regrade) starts the count
    again. The task row is written in the caller's transaction, so a worker sees it only once
    the submission it names is committed too.
    """
    from webapp.submissions.tasks import grade

    Submission.objects.filter(pk=submission.pk).update(
        status=Submission.Status.QUEUED,
        attempt=F("attempt") + 1,
        interruptions=F("interruptions") + 1 if after_interruption else 0,
        worker="",
        heartbeat_at=None,
        started_at=None,
        finished_at=None,
        verdict="",
        score=None,
        max_score=None,
        report=None,
    )
    submission.refresh_from_db()
    result = grade.using(queue_name=queue_for(submission)).enqueue(submission.pk, submission.attempt)
    Submission.objects.filter(pk=submission.pk).update(task_id=str(result.id))


def run_attempt(submission_id: int, attempt: int) -> str:
    """The task body: grade the submission if this attempt is still the current one."""
    started = timezone.now()
    claimed = Submission.objects.filter(pk=submission_id, attempt=attempt, status=Submission.Status.QUEUED).update(
        status=Submission.Status.RUNNING, worker=WORKER_NAME, heartbeat_at=started, started_at=started
    )
    if not claimed:
        return "superseded"
    submission = Submission.objects.select_related("problem").get(pk=submission_id)
    with _heartbeat(submission_id, attempt):
        try:
            report = grading.grade_code(
                submission.problem.slug,
                submission.code,
                include_hidden=submission.kind == Submission.Kind.SUBMIT,
                notebook=submission.notebook,
            )
        except Exception as exc:
            logger.exception("grading submission %s failed", submission_id)
            return _finish(submission, attempt, None, f"the grader failed: {type(exc).__name__}: {exc}")
    return _finish(submission, attempt, report, "")


def _finish(submission: Submission, attempt: int, report: dict[str, Any] | None, failure: str) -> str:
    fields: dict[str, Any] = {"finished_at": timezone.now(), "heartbeat_at": None}
    if report is None:
        fields.update(status=Submission.Status.FAILED, verdict="", report={"message": failure, "tests": []})
    else:
        fields.update(
            status=Submission.Status.GRADED,
            verdict=report["verdict"],
            score=report["score"],
            max_score=report["max_score"],
            report=report,
        )
    with transaction.atomic():
        written = Submission.objects.filter(pk=submission.pk, attempt=attempt, status=Submission.Status.RUNNING).update(
            **fields
        )
        # A platform failure says nothing of the student's code: their standing stays as it was.
        if written and report is not None:
            Progress.refresh(submission.user_id, submission.problem_id)
    return str(fields.get("verdict") or fields["status"]) if written else "superseded"


@contextmanager
def _heartbeat(submission_id: int, attempt: int) -> Iterator[None]:
    """Tell the other workers, every few seconds, that this attempt is alive."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(HEARTBEAT_S):
                try:
                    Submission.objects.filter(pk=submission_id, attempt=attempt).update(heartbeat_at=timezone.now())
                except DatabaseError:  # a locked database, say: the next beat will do
                    logger.warning("submission %s: heartbeat not recorded", submission_id, exc_info=True)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"heartbeat-{submission_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def requeue_stalled() -> list[int]:
    """Give another attempt to every submission whose worker has gone silent; their ids.

    A running submission is stalled when its heartbeat is older than STALLED_AFTER_S. A
    queued one is stalled when its task was taken (or ended) that long ago without the
    submission ever starting: the worker died between the two.
    """
    cutoff = timezone.now() - timedelta(seconds=settings.STALLED_AFTER_S)
    running = Submission.objects.filter(status=Submission.Status.RUNNING, heartbeat_at__lt=cutoff)
    waiting = {s.task_id: s for s in Submission.objects.filter(status=Submission.Status.QUEUED).exclude(task_id="")}
    lost_tasks = (
        DBTaskResult.objects.filter(id__in=list(waiting))
        .exclude(status=TaskResultStatus.READY)
        .filter(Q(started_at__lt=cutoff) | Q(started_at=None, enqueued_at__lt=cutoff))
    )
    queued = [waiting[str(task_id)] for task_id in lost_tasks.values_list("id", flat=True)]
    requeued = []
    for submission in [*running, *queued]:
        with transaction.atomic():
            # Only if nobody else took it back in the meantime (many workers run this).
            taken_back = Submission.objects.filter(
                pk=submission.pk, attempt=submission.attempt, status=submission.status
            ).update(status=Submission.Status.QUEUED, heartbeat_at=None)
            if not taken_back:
                continue
            DBTaskResult.objects.filter(id=submission.task_id, status=TaskResultStatus.RUNNING).update(
                status=TaskResultStatus.FAILED
            )
            interruptions = submission.interruptions + 1
            if interruptions >= MAX_INTERRUPTIONS:
                Submission.objects.filter(pk=submission.pk).update(
                    status=Submission.Status.FAILED,
                    interruptions=interruptions,
                    finished_at=timezone.now(),
                    report={"message": f"grading was interrupted {interruptions} times; try again", "tests": []},
                )
                continue
            enqueue(submission, after_interruption=True)
        logger.warning("submission %s: worker %s went silent; queued again", submission.pk, submission.worker)
        requeued.append(submission.pk)
    return requeued
