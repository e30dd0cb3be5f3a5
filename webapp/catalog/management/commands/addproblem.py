"""``manage.py addproblem NOTEBOOK [--solution PY] [--wrong PY ...] [--update]``."""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from webapp.catalog.models import Problem
from webapp.grading import InstallRefused, install_problem


class Command(BaseCommand):
    help = (
        "Validate a problem notebook (metadata; the reference passes; the starter and every wrong "
        "solution fail), then install it into problems/ and solutions/ and the catalog."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("notebook", type=Path, help="the problem notebook (.ipynb)")
        parser.add_argument("--solution", type=Path, help="the reference solution (.py)")
        parser.add_argument("--wrong", type=Path, nargs="*", default=[], help="known-wrong solutions that must fail")
        parser.add_argument("--update", action="store_true", help="replace an installed problem of the same slug")

    def handle(self, *args: Any, **options: Any) -> None:
        for path in [options["notebook"], options["solution"], *options["wrong"]]:
            if path is not None and not path.is_file():
                raise CommandError(f"{path}: no such file")
        try:
            result = install_problem(
                options["notebook"], solution=options["solution"], wrong=options["wrong"], update=options["update"]
            )
        except InstallRefused as exc:
            raise CommandError(str(exc)) from None
        for line in result.checks:
            self.stdout.write(line)
        Problem.install(result.problem)
        self.stdout.write(self.style.SUCCESS(f"installed {result.problem.slug}"))
