from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.lti.claims import LaunchRefused
from webapp.lti.models import CourseLink
from webapp.lti.people import sync_roster


class Command(BaseCommand):
    help = (
        "Enrol the members of the platform courses linked to COURSE (by their Names and Roles "
        "service) with their roles; update the roles of those already enrolled."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("course", help="the course's slug")

    def handle(self, *args: Any, course: str, **options: Any) -> None:
        links = list(CourseLink.objects.filter(course__slug=course).select_related("course", "context__deployment"))
        if not links:
            raise CommandError(f"no platform course is linked to a course {course!r}")
        for link in links:
            try:
                result = sync_roster(link)
            except LaunchRefused as refusal:
                raise CommandError(f"{link.context}: {refusal.message}") from None
            except Exception as exc:
                raise CommandError(f"{link.context}: the platform's roster could not be read: {exc}") from None
            self.stdout.write(
                f"{link.context}: enrolled {len(result.enrolled)}, updated {len(result.updated)}, "
                f"skipped {len(result.skipped)}"
            )
