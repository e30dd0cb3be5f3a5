"""Server time of a course's problem statistics: 500 students by an assignment of 10 problems.

Run: .venv/bin/python -m bench.problem_statistics [--students 500] [--problems 10] [--runs 20]

On a throwaway SQLite database (or the one ``DATABASE_URL`` names, which it fills), it makes a
course, its students, one assignment of ``--problems`` problems, and for each student and
problem a Run and three graded Submits whose reports have the grader's current shape (a visible
test and five hidden ones): most students fail the empty array first, then a dtype, then are
accepted; a third never are. Each Submit's hidden failures are summarised as the worker writes
them (``grading.hidden_failures``). Then a TA signs in and loads the statistics page ``--runs``
times (after one untimed load); it prints the median and p90 of the app's own time per response
(the ``Server-Timing`` header), and of the CSV export.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

from bench.course_bench import RELEASE, arguments, bench_course, print_timings, ta_page_timer

HIDDEN = (
    ("test_sums_empty", "Sums an empty array to zero.", "x: float32[0]"),
    ("test_keeps_dtype", "Keeps the input's dtype.", "x: bfloat16[3,4]"),
    ("test_sums_every_shape", "Sums every shape.", "x: float32[2,3]"),
    ("test_is_compiled_ahead_of_time", "Is compiled ahead of time.", "x: float32[5]"),
    ("test_sums_scalars", "Sums a 0-d array.", "x: float32[]"),
)


def report(slug: str, failed: set[str]) -> dict[str, Any]:
    """A Submit's report as the grader writes it (schema 3), failing the hidden tests ``failed``."""
    from grader.report import Report, TestResult
    from grader.verdicts import Verdict

    tests = [TestResult("test_sums_small", "passed", 1.0, 1.0, "", False, 0.2, tested_property="Sums a vector.")]
    for name, sentence, kind in HIDDEN:
        test = TestResult(name, "passed", 1.0, 1.0, "", True, 0.3, tested_property=sentence)
        if name in failed:
            test.outcome, test.points, test.verdict = "failed", 0.0, Verdict.WRONG_ANSWER
            test.message = "your result differs from the reference's"
            test.failing_input = f"{slug}(x)\n  {kind}"
            test.failing_types = [kind]
        tests.append(test)
    score = round(100.0 * sum(test.points for test in tests) / len(tests), 2)
    verdict = Verdict.WRONG_ANSWER if failed else Verdict.ACCEPTED
    return Report(problem=slug, verdict=verdict, score=score, max_score=100.0, tests=tests, duration_s=1.2).to_dict()


def main() -> None:
    args = arguments(__doc__.splitlines()[0], students=500)
    made = bench_course("statistics", students=args.students, problems=args.problems)
    from webapp import grading
    from webapp.submissions.models import Submission

    problems, students = made.problems, made.students
    # Most of the class meets the empty array first, then the dtype, then is accepted; every
    # third student never is (the empty array, then every shape too).
    solved: tuple[set[str], ...] = ({"test_sums_empty"}, {"test_keeps_dtype"}, set())
    unsolved: tuple[set[str], ...] = (
        {"test_sums_empty"},
        {"test_sums_empty", "test_sums_every_shape"},
        {"test_sums_every_shape"},
    )
    reports = {
        (problem.slug, n, who): report(problem.slug, failed)
        for problem in problems
        for who, sequence in (("solved", solved), ("unsolved", unsolved))
        for n, failed in enumerate(sequence)
    }
    visible_only = {"schema": 3, "verdict": "accepted", "score": 100.0, "max_score": 100.0, "tests": []}
    submissions = []
    for number, user in enumerate(students):
        who = "unsolved" if number % 3 == 0 else "solved"
        for problem in problems:
            start = RELEASE + timedelta(hours=number % 48)
            submissions.append(
                Submission(user=user, problem=problem, kind="run", code="x", status="graded", verdict="accepted",
                           report=visible_only, handed_in_at=start)
            )  # fmt: skip
            for n in range(3):
                graded = reports[problem.slug, n, who]
                submissions.append(
                    Submission(
                        user=user,
                        problem=problem,
                        kind="submit",
                        code="x",
                        status="graded",
                        verdict=graded["verdict"],
                        score=graded["score"],
                        max_score=graded["max_score"],
                        report=graded,
                        hidden_failures=grading.hidden_failures(graded),
                        handed_in_at=start + timedelta(minutes=20 * (n + 1)),
                    )
                )
    Submission.objects.bulk_create(submissions, batch_size=2000)
    app_ms = ta_page_timer(made.course)

    submits = sum(submission.kind == "submit" for submission in submissions)
    print(
        f"{args.students} students x {args.problems} problems, {submits} graded Submits and "
        f"{len(submissions) - submits} Runs ({os.environ['DATABASE_URL'].split(':')[0]})"
    )
    pages = (
        ("page", "/courses/bench/gradebook/statistics/"),
        ("csv", "/courses/bench/gradebook/statistics/?format=csv"),
    )
    print_timings("statistics", pages, app_ms, args.runs)


if __name__ == "__main__":
    main()
