"""``manage.py regrade SLUG``: grade every submission of a problem again (after ``addproblem --update``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.catalog.models import Problem
from webapp.submissions.models import Submission


class Command(BaseCommand):
    help = "Queue every submission of problem SLUG to be graded again; the workers do the grading."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--submits-only", action="store_true", help="leave Run submissions alone")

    def handle(self, *args: Any, slug: str, submits_only: bool, **options: Any) -> None:
        problem = Problem.objects.filter(slug=slug).first()
        if problem is None:
            known = ", ".join(Problem.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"no problem {slug!r} in the catalog (known: {known})")
        submissions = Submission.objects.filter(problem=problem)
        if submits_only:
            submissions = submissions.filter(kind=Submission.Kind.SUBMIT)
        count = len(Submission.regrade(submissions))
        self.stdout.write(f"queued {count} submission(s) of {slug} for grading again")
