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

import os
from datetime import timedelta

from bench.course_bench import DUE, arguments, bench_course, print_timings, ta_page_timer


def main() -> None:
    args = arguments(__doc__.splitlines()[0], students=200)
    made = bench_course(
        "gradebook", students=args.students, problems=args.problems, sections="ABCD", late_policy="penalty_per_day"
    )
    from webapp.courses.models import Extension
    from webapp.submissions.models import Submission

    Extension.objects.bulk_create(
        Extension(assignment=made.assignment, user=user, due_at=DUE + timedelta(days=2), reason="bench")
        for user in made.students[::10]
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
            handed_in_at=DUE + offset,
        )
        for user in made.students
        for problem in made.problems
        for score, offset in ((40.0, -timedelta(days=2)), (80.0, -timedelta(hours=1)), (100.0, timedelta(hours=5)))
    ]
    Submission.objects.bulk_create(submissions, batch_size=2000)
    app_ms = ta_page_timer(made.course)
    print(
        f"{args.students} students x {args.problems} problems, {len(submissions)} graded Submits "
        f"({os.environ['DATABASE_URL'].split(':')[0]})"
    )
    pages = (
        ("page", "/courses/bench/gradebook/"),
        ("by problem", "/courses/bench/gradebook/?assignment=week-1"),
        ("csv", "/courses/bench/gradebook/?format=csv"),
    )
    print_timings("gradebook", pages, app_ms, args.runs)


if __name__ == "__main__":
    main()
