"""``manage.py enrol COURSE ROSTER.csv``: invite a roster's students to a course."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.courses.models import Course
from webapp.courses.roster import RosterError, read_roster


class Command(BaseCommand):
    help = (
        "Invite the students of a CSV roster (columns username and email, optionally name, student_id and section) "
        "to a course, as the roster page does, here and now in batches: each gets an email with a link "
        "to activate the account made for them, or to join with their own account."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("course", help="the course's slug")
        parser.add_argument("roster", type=Path, help="a CSV file with a header row")
        parser.add_argument(
            "--site-url",
            default=getattr(settings, "SITE_URL", "") or "http://127.0.0.1:8000",
            help="the site's address, for the emailed links (default: %(default)s)",
        )

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
        upload = course.enrol(rows, site_url=options["site_url"])
        self.stdout.write(
            f"{course.slug}: {upload.total} rows: {upload.accounts_made} accounts made (each emailed a link to "
            f"activate it), {upload.invited} invited with their own accounts, {upload.listed_before} invited before"
        )
