"""``manage.py gradebook --csv FILE``: the gradebook (students × problems) as CSV."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.catalog.models import Problem
from webapp.submissions.models.gradebook import write_gradebook_csv


class Command(BaseCommand):
    help = "Export the gradebook (best Submit score per student and problem) as CSV."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--csv", dest="path", required=True, metavar="FILE", help="where to write it ('-': standard output)"
        )
        parser.add_argument("--problem", action="append", help="only this problem (repeat for several)")

    def handle(self, *args: Any, path: str, problem: list[str] | None, **options: Any) -> None:
        problems = None
        if problem:
            found = {p.slug: p for p in Problem.objects.filter(slug__in=problem)}
            missing = [slug for slug in problem if slug not in found]
            if missing:
                raise CommandError(f"no problem {', '.join(map(repr, missing))} in the catalog")
            problems = [found[slug] for slug in problem]
        if path == "-":
            buffer = io.StringIO()
            write_gradebook_csv(buffer, problems)
            self.stdout.write(buffer.getvalue(), ending="")
            return
        target = Path(path)
        if not target.parent.is_dir():
            raise CommandError(f"{target.parent}: no such folder")
        with target.open("w", newline="") as handle:
            count = write_gradebook_csv(handle, problems)
        self.stdout.write(f"wrote the gradebook of {count} student(s) to {target}")
