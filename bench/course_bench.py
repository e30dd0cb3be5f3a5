"""What the course pages' benches share (``bench.gradebook_page``, ``bench.problem_statistics``):
their command line, a throwaway site database with the catalog's first problems, a course whose
students are in an assignment of them, and a TA's timed loads of its pages.

Each bench makes its own hand-ins (they are what it measures); the rest is here once.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.stats import p90

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from webapp.catalog.models import Problem
    from webapp.courses.models import Assignment, Course

RELEASE, DUE = datetime(2026, 9, 1, tzinfo=UTC), datetime(2026, 9, 8, tzinfo=UTC)


def arguments(description: str, *, students: int) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--students", type=int, default=students)
    parser.add_argument("--problems", type=int, default=10)
    parser.add_argument("--runs", type=int, default=20)
    return parser.parse_args()


@dataclass
class BenchCourse:
    """The course ``bench`` of a throwaway site: its students and its one assignment's problems."""

    course: Course
    assignment: Assignment
    problems: list[Problem]
    students: list[User]


def bench_course(name: str, *, students: int, problems: int, sections: str = "", **assignment: Any) -> BenchCourse:
    """Django set up on a throwaway SQLite database (or the one ``DATABASE_URL`` names, which it
    fills), migrated, with the catalog's first ``problems`` installed; a course with ``students``
    (in ``sections`` by turns, if given), members since before the term, and the assignment
    ``week-1`` of those problems (released ``RELEASE``, due ``DUE``; ``assignment`` adds fields)."""
    folder = tempfile.mkdtemp(prefix=f"jaxjudge-bench-{name}-")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{Path(folder) / 'db.sqlite3'}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from grader.problem import all_problems
    from webapp.catalog.models import Problem
    from webapp.courses.models import Assignment, AssignmentProblem, Course, Membership

    call_command("migrate", verbosity=0)
    for found in all_problems()[:problems]:
        Problem.install(found)
    installed = list(Problem.objects.all()[:problems])
    if len(installed) < problems:
        raise SystemExit(f"only {len(installed)} problems are installed")
    course = Course.objects.create(slug="bench", title="Bench")
    week = Assignment.objects.create(
        course=course, slug="week-1", title="Week 1", release_at=RELEASE, due_at=DUE, **assignment
    )
    AssignmentProblem.objects.bulk_create(
        AssignmentProblem(assignment=week, problem=problem, position=n) for n, problem in enumerate(installed)
    )
    people = User.objects.bulk_create(User(username=f"student{n:03d}") for n in range(students))
    Membership.objects.bulk_create(
        Membership(course=course, user=user, section=sections[n % len(sections)] if sections else "")
        for n, user in enumerate(people)
    )
    course.memberships.update(joined_at=RELEASE - timedelta(days=30))  # members since before the term
    return BenchCourse(course, week, installed, people)


def ta_page_timer(course: Course) -> Callable[[str], float]:
    """A TA of ``course``, signed in: loads a page and gives the app's own time for it in ms
    (its ``Server-Timing`` header)."""
    from django.contrib.auth.models import User
    from django.test import Client

    from webapp.courses.models import Membership

    ta = User.objects.create_user("ta")
    Membership.objects.create(course=course, user=ta, role=Membership.Role.TA)
    client = Client(HTTP_HOST="localhost")
    client.force_login(ta)

    def app_ms(url: str) -> float:
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        return float(response["Server-Timing"].split("dur=")[1])

    return app_ms


def print_timings(what: str, pages: tuple[tuple[str, str], ...], app_ms: Callable[[str], float], runs: int) -> None:
    """Each page's median and p90 app time over ``runs`` loads, after one untimed load
    (templates compiled, connections open)."""
    for label, url in pages:
        app_ms(url)
        times = [app_ms(url) for _ in range(runs)]
        print(f"{what} {label:<10} app time median {statistics.median(times):.1f} ms, p90 {p90(times):.1f} ms")
