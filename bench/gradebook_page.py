"""Server time of a course's gradebook page: 200 students by an assignment of 10 problems.

Run: .venv/bin/python -m bench.gradebook_page [--students 200] [--problems 10] [--runs 20]

On a throwaway SQLite database (or the one ``DATABASE_URL`` names, which it fills), it makes
a course, its students in four sections, one assignment of ``--problems`` problems with a
per-day late policy, and three graded Submits per student and problem (one of them late, some
under an extension). Then a TA signs in and loads the gradebook ``--runs`` times (after one
untimed load); it prints the median and p90 of the app's own time per response (the
``Server-Timing`` header), and of the CSV export.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.stats import p90


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--problems", type=int, default=10)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="jaxjudge-bench-gradebook-")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{Path(folder) / 'db.sqlite3'}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    from grader.problem import all_problems
    from webapp.catalog.models import Problem
    from webapp.courses.models import Assignment, AssignmentProblem, Course, Extension, Membership
    from webapp.submissions.models import Submission

    call_command("migrate", verbosity=0)
    for problem in all_problems()[: args.problems]:
        Problem.install(problem)
    problems = list(Problem.objects.all()[: args.problems])
    if len(problems) < args.problems:
        raise SystemExit(f"only {len(problems)} problems are installed")
    release, due = datetime(2026, 9, 1, tzinfo=UTC), datetime(2026, 9, 8, tzinfo=UTC)
    course = Course.objects.create(slug="bench", title="Bench")
    assignment = Assignment.objects.create(
        course=course, slug="week-1", title="Week 1", release_at=release, due_at=due, late_policy="penalty_per_day"
    )
    AssignmentProblem.objects.bulk_create(
        AssignmentProblem(assignment=assignment, problem=problem, position=n) for n, problem in enumerate(problems)
    )
    students = User.objects.bulk_create(User(username=f"student{n:03d}") for n in range(args.students))
    Membership.objects.bulk_create(
        Membership(course=course, user=user, section="ABCD"[n % 4]) for n, user in enumerate(students)
    )
    course.memberships.update(joined_at=release - timedelta(days=30))  # members since before the term
    Extension.objects.bulk_create(
        Extension(assignment=assignment, user=user, due_at=due + timedelta(days=2), reason="bench")
        for user in students[::10]
    )
    submissions = [
        Submission(
            user=user,
            problem=problem,
            kind="submit",
            code="x",
            status="graded",
            score=score,
            max_score=100.0,
            handed_in_at=due + offset,
        )
        for user in students
        for problem in problems
        for score, offset in ((40.0, -timedelta(days=2)), (80.0, -timedelta(hours=1)), (100.0, timedelta(hours=5)))
    ]
    Submission.objects.bulk_create(submissions, batch_size=2000)
    ta = User.objects.create_user("ta")
    Membership.objects.create(course=course, user=ta, role=Membership.Role.TA)
    client = Client(HTTP_HOST="localhost")
    client.force_login(ta)

    def app_ms(url: str) -> float:
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        return float(response["Server-Timing"].split("dur=")[1])

    print(
        f"{args.students} students x {args.problems} problems, {len(submissions)} graded Submits "
        f"({os.environ['DATABASE_URL'].split(':')[0]})"
    )
    pages = (
        ("page", "/courses/bench/gradebook/"),
        ("by problem", f"/courses/bench/gradebook/?assignment={assignment.slug}"),
        ("csv", "/courses/bench/gradebook/?format=csv"),
    )
    for label, url in pages:
        app_ms(url)  # untimed: templates compiled, connections open
        times = [app_ms(url) for _ in range(args.runs)]
        print(f"gradebook {label:<10} app time median {statistics.median(times):.1f} ms, p90 {p90(times):.1f} ms")


if __name__ == "__main__":
    main()
