"""The site-wide gradebook: every student's best score on every problem."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import models
from django.db.models import Max

from webapp.catalog.models import Problem
from webapp.submissions.models.submission import Submission


class GradebookStudent(User):
    """A student as the gradebook shows them (the admin's gradebook page hangs on this)."""

    class Meta:
        proxy = True
        verbose_name = "gradebook"
        verbose_name_plural = "gradebook"


def gradebook(problems: list[Problem] | None = None) -> tuple[list[Problem], list[tuple[User, list[float | None]]]]:
    """Students × problems: each cell the best score of the student's graded Submits (None: none).

    Students are the active accounts that are not staff, and anyone who submitted; problems
    are the catalog's, in its order, unless given.
    """
    problems = list(problems if problems is not None else Problem.objects.all())
    best = {
        (row["user_id"], row["problem_id"]): row["best"]
        for row in Submission.objects.filter(
            kind=Submission.Kind.SUBMIT, status=Submission.Status.GRADED, problem__in=problems
        )
        .values("user_id", "problem_id")
        .annotate(best=Max("score"))
    }
    submitted = {user_id for user_id, _ in best}
    students = User.objects.filter(models.Q(is_active=True, is_staff=False) | models.Q(pk__in=submitted))
    rows = [
        (student, [best.get((student.pk, problem.pk)) for problem in problems])
        for student in students.order_by("username")
    ]
    return problems, rows
