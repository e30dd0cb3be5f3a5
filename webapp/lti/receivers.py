"""When a student's standing in an assignment may have changed, queue its send to the platforms."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

from webapp.courses.models import Override
from webapp.lti.models import AssignmentLink
from webapp.submissions.models import Submission
from webapp.submissions.signals import graded


def connect() -> None:
    graded.connect(submission_graded, dispatch_uid="lti-submission-graded")
    post_save.connect(override_saved, sender=Override, dispatch_uid="lti-override-saved")


def submission_graded(sender: Any, submission: Submission, **kwargs: Any) -> None:
    if submission.kind != Submission.Kind.SUBMIT:
        return  # a Run counts for nothing
    linked = AssignmentLink.objects.filter(assignment__items__problem_id=submission.problem_id)
    queue_scores(submission.user_id, linked.values_list("assignment_id", flat=True))


def override_saved(sender: Any, instance: Override, **kwargs: Any) -> None:
    linked = AssignmentLink.objects.filter(assignment__items=instance.item_id)
    queue_scores(instance.user_id, linked.values_list("assignment_id", flat=True))


def queue_scores(user_id: int, assignment_ids: Iterable[int]) -> None:
    """One send per assignment, queued once the change is committed (the task reads it back)."""
    from webapp.lti.tasks import send_scores

    for assignment_id in sorted(set(assignment_ids)):
        transaction.on_commit(partial(send_scores.enqueue, assignment_id, user_id))
