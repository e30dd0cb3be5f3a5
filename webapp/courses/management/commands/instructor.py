"""``manage.py instructor USERNAME``: let an account create and run courses in the admin."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.courses.instructors import CREATORS_GROUP_NAME, GROUP_NAME, make_instructor


class Command(BaseCommand):
    help = "Make an account an instructor: into the admin, to create courses and run those it teaches."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")

    def handle(self, *args: Any, username: str, **options: Any) -> None:
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no account {username!r}: it signs up on the site first")
        make_instructor(user)
        self.stdout.write(
            f"{username} is in {GROUP_NAME!r} and {CREATORS_GROUP_NAME!r}: they create courses at /courses/new/"
        )
