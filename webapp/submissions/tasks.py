"""The grading task, run by workers through the Django Tasks API (django-tasks-db backend)."""

from __future__ import annotations

from django_tasks import task


@task()
def grade(submission_id: int, attempt: int) -> str:
    """Grade one attempt at a submission; returns what became of it."""
    from webapp.submissions.queue import run_attempt

    return run_attempt(submission_id, attempt)
