"""Run and Submit as the submissions' tests drive them: post code to a problem, write a
submission straight to the database, read its task, and grade one for real in this process."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from tests.webapp.support.people import submission_of
from webapp.submissions.models import Submission

SLUG = "aot_compiled_sum"


SOME_CODE = "import jax\n\n\ndef aot_compiled_sum(x):\n    return x.sum()\n"


JSON = {"accept": "application/json"}


def post(client: Client, action: str, code: str, *, slug: str = SLUG, as_json: bool = True) -> Any:
    headers = JSON if as_json else {}
    return client.post(reverse(f"submissions:{action}", args=[slug]), {"code": code}, headers=headers)


def make_submission(
    user: User, kind: str = Submission.Kind.SUBMIT, slug: str = SLUG, code: str = SOME_CODE, **fields: Any
) -> Submission:
    """A submission of ``user``'s as it stands when just made (queued), or with ``fields``."""
    fields.setdefault("status", Submission.Status.QUEUED)
    return submission_of(user, slug, kind=kind, code=code, **fields)


def task_of(submission: Submission) -> DBTaskResult:
    submission.refresh_from_db()
    return DBTaskResult.objects.get(id=submission.task_id)


def ago(seconds: float) -> Any:
    return timezone.now() - timedelta(seconds=seconds)


def grade(user: User, kind: str, code: str) -> Submission:
    submission = make_submission(user, kind, code=code)
    submission.enqueue()
    Submission.grade_attempt(submission.pk, submission.attempt)
    submission.refresh_from_db()
    return submission
