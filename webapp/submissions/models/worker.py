"""The grading workers, as their heartbeats show them (``/healthz`` counts the living), and how
a living worker takes over the submissions of one that went silent."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from webapp.submissions.models.submission import Submission

logger = logging.getLogger(__name__)


class Worker(models.Model):
    """A grading worker as its heartbeat shows it: alive while it beats (``/healthz`` counts them)."""

    name = models.CharField(max_length=100, unique=True)  # host:pid
    queue = models.CharField(max_length=20)
    started_at = models.DateTimeField(auto_now_add=True)
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.name

    @classmethod
    def alive(cls) -> models.QuerySet[Worker]:
        """The workers whose heartbeat is fresher than the stall time (the same rule as for gradings)."""
        return cls.objects.filter(beat_at__gte=timezone.now() - timedelta(seconds=settings.STALLED_AFTER_S))

    @classmethod
    def beat(cls, name: str, queue: str) -> None:
        cls.objects.update_or_create(name=name, defaults={"queue": queue, "beat_at": timezone.now()})

    @classmethod
    def forget_dead(cls, older_than: timedelta = timedelta(days=1)) -> None:
        cls.objects.filter(beat_at__lt=timezone.now() - older_than).delete()


def requeue_stalled() -> list[int]:
    """Give another attempt to every submission whose worker has gone silent; their ids.

    A running submission is stalled when its heartbeat is older than STALLED_AFTER_S. A
    queued one is stalled when its task was taken (or ended) that long ago without the
    submission ever starting: the worker died between the two. Many workers run this at
    once: each change is conditional on the submission being as it was seen.
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
            taken_back = Submission.objects.filter(
                pk=submission.pk, attempt=submission.attempt, status=submission.status
            ).update(status=Submission.Status.QUEUED, heartbeat_at=None)
            if not taken_back:
                continue
            DBTaskResult.objects.filter(id=submission.task_id, status=TaskResultStatus.RUNNING).update(
                status=TaskResultStatus.FAILED
            )
            interruptions = submission.interruptions + 1
            if interruptions >= Submission.MAX_INTERRUPTIONS:
                Submission.objects.filter(pk=submission.pk).update(
                    status=Submission.Status.FAILED,
                    interruptions=interruptions,
                    finished_at=timezone.now(),
                    report=submission.report_without_verdict(
                        f"grading was interrupted {interruptions} times; try again"
                    ),
                )
                continue
            submission.enqueue(after_interruption=True)
        logger.warning("submission %s: worker %s went silent; queued again", submission.pk, submission.worker)
        requeued.append(submission.pk)
    return requeued
