"""The grading task, run by workers through the Django Tasks API (django-tasks-db backend).

The model queues this task (``Submission.enqueue``), so the task reaches the model through
the app registry rather than importing it back.
"""

from __future__ import annotations

from django.apps import apps
from django_tasks import task


@task()
def grade(submission_id: int, attempt: int) -> str:
    """Grade one attempt at a submission; returns what became of it."""
    submission_model = apps.get_model("submissions", "Submission")
    return str(submission_model.grade_attempt(submission_id, attempt))
