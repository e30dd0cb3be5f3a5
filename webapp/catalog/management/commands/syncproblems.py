"""``manage.py syncproblems``: bring the catalog in line with the notebooks in problems/."""

from typing import Any

from django.core.management.base import BaseCommand

from webapp.catalog.models import Problem
from webapp.grading import installed_problems


class Command(BaseCommand):
    help = "Create or update a catalog entry for every notebook in problems/ (used by the set-up)."

    def handle(self, *args: Any, **options: Any) -> None:
        for problem in installed_problems():
            Problem.install(problem)
            self.stdout.write(f"synced {problem.slug}")
