"""The gradebook as CSV: what ``manage.py gradebook`` writes and the admin's gradebook downloads."""

from __future__ import annotations

from typing import TextIO

from webapp.catalog.models import Problem
from webapp.grading import write_gradebook
from webapp.submissions.models import gradebook


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
