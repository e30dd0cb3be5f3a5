"""The gradebook as CSV: what ``manage.py gradebook`` writes and the admin's gradebook downloads."""

from __future__ import annotations

import csv
from typing import TextIO

from webapp.catalog.models import Problem
from webapp.grading import spreadsheet_row
from webapp.submissions.models import gradebook


def write_gradebook_csv(handle: TextIO, problems: list[Problem] | None = None) -> int:
    """A row per student, a column per problem, then the total; returns how many students.

    A cell is the best score of the student's graded Submits, empty when they have none. A
    username or an email is someone's own text: no cell is one a spreadsheet would run.
    """
    columns, rows = gradebook(problems)
    writer = csv.writer(handle)
    writer.writerow(spreadsheet_row(["student", "email", *(problem.slug for problem in columns), "total"]))
    for student, scores in rows:
        cells = ["" if score is None else f"{score:g}" for score in scores]
        total = sum(score for score in scores if score is not None)
        writer.writerow(spreadsheet_row([student.username, student.email, *cells, f"{total:g}"]))
    return len(rows)
