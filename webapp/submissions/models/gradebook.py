"""The site-wide gradebook: every student's best score on every problem, and the same as CSV
(what ``manage.py gradebook`` writes and the admin's gradebook downloads)."""

from __future__ import annotations

from typing import TextIO

from django.contrib.auth.models import User
from django.db import models
from django.db.models import Max

from webapp.catalog.models import Problem
from webapp.grading import write_gradebook
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


def write_gradebook_csv(handle: TextIO, problems: list[Problem] | None = None) -> int:
    """A row per student, a column per problem, then the total; returns how many students.

    A cell is the best score of the student's graded Submits, empty when they have none. A
    username or an email is someone's own text: no cell is one a spreadsheet would run.
    """
    columns, rows = gradebook(problems)
    lines = (
        ([student.username, student.email, *scores], sum(score for score in scores if score is not None))
        for student, scores in rows
    )
    return write_gradebook(handle, ["student", "email", *(problem.slug for problem in columns)], lines)
