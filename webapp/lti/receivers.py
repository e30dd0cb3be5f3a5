"""When a student's standing in an assignment may have changed, queue its send to the platforms
(only to the links of courses they are a student of, from a deployment they came from)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save

from webapp.courses.models import Assignment, AssignmentProblem, Extension, Membership, Override
from webapp.lti.models import AssignmentLink
from webapp.submissions.models import Submission
from webapp.submissions.signals import graded


def connect() -> None:
    graded.connect(submission_graded, dispatch_uid="lti-submission-graded")
    post_save.connect(override_saved, sender=Override, dispatch_uid="lti-override-saved")
    # What else moves a student's points: their extension, the deadline or policy, the problems' points.
    for signal in (post_save, post_delete):
        signal.connect(extension_changed, sender=Extension, dispatch_uid=f"lti-extension-{id(signal)}")
        signal.connect(item_changed, sender=AssignmentProblem, dispatch_uid=f"lti-item-{id(signal)}")
    post_save.connect(assignment_changed, sender=Assignment, dispatch_uid="lti-assignment-saved")


def submission_graded(sender: Any, submission: Submission, **kwargs: Any) -> None:
    if submission.kind != Submission.Kind.SUBMIT:
        return  # a Run counts for nothing
    linked = AssignmentLink.for_student(submission.user_id).filter(assignment__items__problem_id=submission.problem_id)
    queue_scores(submission.user_id, linked.values_list("assignment_id", flat=True))


def override_saved(sender: Any, instance: Override, **kwargs: Any) -> None:
    linked = AssignmentLink.for_student(instance.user_id).filter(assignment__items=instance.item_id)
    queue_scores(instance.user_id, linked.values_list("assignment_id", flat=True))


def extension_changed(sender: Any, instance: Extension, **kwargs: Any) -> None:
    if AssignmentLink.for_student(instance.user_id).filter(assignment_id=instance.assignment_id).exists():
        queue_scores(instance.user_id, [instance.assignment_id])


def item_changed(sender: Any, instance: AssignmentProblem, **kwargs: Any) -> None:
    queue_course_scores(instance.assignment_id)


def assignment_changed(sender: Any, instance: Assignment, created: bool = False, **kwargs: Any) -> None:
    if not created:
        queue_course_scores(instance.pk)


def queue_course_scores(assignment_id: int) -> None:
    """Every student's send for a linked assignment whose due time, policy or points changed
    (a student who never came from a platform is skipped by the task)."""
    if not AssignmentLink.objects.filter(assignment_id=assignment_id).exists():
        return
    students = Membership.objects.filter(
        course__assignments=assignment_id,
        role=Membership.Role.STUDENT,
        # Came from a platform course this assignment is linked in (``AssignmentLink.for_student``).
        user__platform_accounts__contexts__resource_links__assignment_link__assignment=assignment_id,
    ).values_list("user_id", flat=True)
    for user_id in students.distinct():
        queue_scores(user_id, [assignment_id])


def queue_scores(user_id: int, assignment_ids: Iterable[int]) -> None:
    """One send per assignment, queued once the change is committed (the task reads it back)."""
    from webapp.lti.tasks import send_scores

    for assignment_id in sorted(set(assignment_ids)):
        transaction.on_commit(partial(send_scores.enqueue, assignment_id, user_id))
