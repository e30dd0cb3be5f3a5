"""``manage.py autograde --problem SLUG FILES...``: grade student notebooks and record the results.

The notebooks are graded as ``python -m grader autograde`` grades them (in parallel, each run
as Jupyter runs it, in a sandbox); each result whose student has an account here (matched by
username) is recorded as a Submit of theirs. Names without an account are listed, never made up.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.catalog.models import Problem
from webapp.submissions.models import Submission


class Command(BaseCommand):
    help = "Grade student notebooks (or .py files) for a problem and record them as the students' Submits."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", help="notebooks, folders of notebooks, or globs")
        parser.add_argument("--problem", required=True, help="the problem's slug (it must be in the catalog)")
        parser.add_argument("--jobs", type=int, help="notebooks graded at once (default: the cores)")
        parser.add_argument(
            "--student-from",
            choices=("file", "metadata"),
            default="file",
            help="whose notebook it is: the file's name (default) or the notebook's grader.student metadata",
        )
        parser.add_argument("--out", type=Path, help="also write the reports, JUnit XML and CSVs here")

    def handle(self, *args: Any, files: list[str], problem: str, **options: Any) -> None:
        from grader.autograde import AutogradeUsageError, autograde, summary_table
        from grader.source import SubmissionInputError, read_submission

        catalog_problem = Problem.objects.filter(slug=problem).first()
        if catalog_problem is None:
            known = ", ".join(Problem.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"no problem {problem!r} in the catalog (known: {known})")
        if options["jobs"] is not None and options["jobs"] < 1:
            raise CommandError("--jobs must be at least 1")
        started = time.perf_counter()
        try:
            graded, finished = autograde(
                files,
                problem=problem,
                jobs=options["jobs"],
                out=options["out"],
                student_from=options["student_from"],
            )
        except AutogradeUsageError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(summary_table(graded, time.perf_counter() - started))
        recorded, unknown = 0, []
        for item in graded:
            user = User.objects.filter(username=item.student).first()
            if user is None:
                unknown.append(item.student)
                continue
            try:
                source = read_submission(item.path)
                code, notebook = source.text, source.notebook or ""
            except SubmissionInputError:  # not readable at all: its verdict says so, there is no code
                code, notebook = "", ""
            Submission.record_graded(user, catalog_problem, item.report.to_dict(), code=code, notebook=notebook)
            recorded += 1
        self.stdout.write(f"recorded {recorded} submission(s) of {problem}")
        if unknown:
            self.stderr.write(
                f"not recorded, no account with that username ({len(unknown)}): {', '.join(sorted(unknown))}"
            )
        if not finished:
            raise CommandError("interrupted: the notebooks graded so far were recorded")
