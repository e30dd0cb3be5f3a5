"""``manage.py enrol COURSE ROSTER.csv``: enrol a roster's students into a course."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.courses.models import Course, RosterError, read_roster


class Command(BaseCommand):
    help = (
        "Enrol the students of a CSV roster (columns username, and optionally email, name, section) "
        "into a course, making the accounts that are missing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("course", help="the course's slug")
        parser.add_argument("roster", type=Path, help="a CSV file with a header row")

    def handle(self, *args: Any, **options: Any) -> None:
        course = Course.objects.filter(slug=options["course"]).first()
        if course is None:
            known = ", ".join(Course.objects.values_list("slug", flat=True)) or "none yet"
            raise CommandError(f"no course {options['course']!r} (courses: {known})")
        path: Path = options["roster"]
        try:
            rows = read_roster(path.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"{path}: cannot read it: {exc}") from None
        except RosterError as exc:
            raise CommandError(f"{path}: {exc}") from None
        result = course.enrol(rows)
        self.stdout.write(
            f"{course.slug}: {len(result.enrolled)} enrolled ({len(result.created)} new accounts), "
            f"{len(result.updated)} moved to another section, "
            f"{len(rows) - len(result.enrolled) - len(result.updated) - len(result.skipped)} already enrolled"
        )
        if result.skipped:
            self.stdout.write(f"staff of the course, left as they are: {', '.join(result.skipped)}")
