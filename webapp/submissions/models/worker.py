"""The grading workers, as their heartbeats show them (``/healthz`` counts the living)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


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
