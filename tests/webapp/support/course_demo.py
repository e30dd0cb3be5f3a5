"""A course with a term's worth of work in it, for ``make screenshots`` to show: an instructor
(who may create courses, in Paris), a TA, twelve students in two sections with the course's
record of each (name, email, student id), one of them in New York, an assignment of ten
problems past its due time under a per-day penalty with a 5-minute grace (graded Runs and
Submits on time, within the grace and late, an extension, an override) and one to come.

The graded Submits carry reports of the grader's current shape: most wrong answers fail a
hidden property on an empty float32 array, a few another on a bfloat16 one, so the problem
statistics have a misconception to name.

Run on the site's database: ``python manage.py shell -c "from tests.webapp.support.course_demo import
make; make()"``. The Submits are made as graded records, not graded in a sandbox: the pages
that show them are what is pictured, not the grading.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from webapp.catalog.models import Problem
    from webapp.submissions.models import Submission

PASSWORD = "a-long-password-42"
INSTRUCTOR, STUDENT = "prof-noether", "ada"
STUDENTS = [
    STUDENT,
    "alan",
    "barbara",
    "claude",
    "donald",
    "edsger",
    "frances",
    "grace",
    "john",
    "katherine",
    "leslie",
    "margaret",
]
# The course's record of each member, as the registrar lists them: not what the accounts call
# themselves ("Ada"), so that the pages show the record.
NAMES = {
    INSTRUCTOR: "Emmy Noether",
    "ada": "Ada Lovelace",
    "alan": "Alan Turing",
    "barbara": "Barbara Liskov",
    "claude": "Claude Shannon",
    "donald": "Donald Knuth",
    "edsger": "Edsger Dijkstra",
    "frances": "Frances Allen",
    "grace": "Grace Hopper",
    "john": "John Backus",
    "katherine": "Katherine Johnson",
    "leslie": "Leslie Lamport",
    "margaret": "Margaret Hamilton",
}
PROBLEMS = [
    "aot_compiled_sum",
    "batched_dot",
    "positive_sum",
    "stable_softplus",
    "relu_jittable",
    "scan_cumsum",
    "compiled_grad",
    "per_example_grads",
    "export_roundtrip",
    "shape_bound_cache",
]
# The problem the student handed in 10 s after the due time (within the grace): the one
# ``make screenshots`` opens from the assignment, between a previous and a next problem.
LATE_BY_SECONDS = PROBLEMS[1]
ZONES = {STUDENT: "America/New_York", INSTRUCTOR: "Europe/Paris"}
EXTENDED, OVERRIDDEN = STUDENTS[3], STUDENTS[5]  # a student with an extension, one with an override
# Inputs by type and shape, as the grader tells a failing one: an empty float32 array (the
# misconception most of the class has) and a bfloat16 one (a few).
EMPTY = ("jnp.zeros((0,), dtype=jnp.float32)", "float32[0]")
BFLOAT16 = ("jnp.array([0.5, -2., 3.], dtype=jnp.bfloat16)", "bfloat16[3]")
FUNCTION_PARAMETERS = ("f", "loss")  # told as "a function", as the grader describes one


def account(username: str) -> User:
    from django.contrib.auth.models import User

    user = User.objects.create_user(username, email=f"{username}@example.edu", password=PASSWORD)
    user.first_name = username.replace("-", " ").title()
    user.save(update_fields=["first_name"])
    return user


@dataclass(frozen=True)
class Tests:
    """A problem's tests as its reports name them, and the two hidden ones the class fails."""

    slug: str
    entry_point: str
    parameters: list[str]
    visible: list[str]
    hidden: list[str]
    on_empty: str  # failed on an empty float32 array by most wrong answers
    on_bfloat16: str  # failed on a bfloat16 array by a few

    @classmethod
    def of(cls, slug: str) -> Tests:
        """Read from the problem's own test code and reference solution (parsed, not run)."""
        from grader.problem import load_problem

        problem = load_problem(slug)
        entry = problem.entry_points[0]
        tree = ast.parse(problem.reference_solution.read_text())
        function = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry)

        def names(source: str) -> list[str]:
            tree = ast.parse(source)
            return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]

        hidden = names(problem.hidden_tests)

        def named(*words: str, besides: str = "") -> str:
            """The first hidden test named by the first of ``words`` that names one; or else the first."""
            others = [name for name in hidden if name != besides]
            return next((name for word in words for name in others if word in name), others[0])

        on_empty = named("empty", "edge", "every_shape")
        return cls(
            slug=slug,
            entry_point=entry,
            parameters=[argument.arg for argument in function.args.args],
            visible=names(problem.visible_tests),
            hidden=hidden,
            on_empty=on_empty,
            on_bfloat16=named("bfloat16", "half", "dtype", "values", besides=on_empty),
        )

    def report(self, *, hidden: bool, failed: dict[str, tuple[str, str]]) -> dict[str, Any]:
        """A report as the grader writes it (schema 3): a Run's (visible tests only) or a
        Submit's, failing the hidden tests ``failed`` (name: the input, as code and by type)."""
        from grader.feedback import property_sentence
        from grader.report import Report, TestResult
        from grader.verdicts import Verdict

        tests = [
            TestResult(name, "passed", 1.0, 1.0, "", False, 0.4, tested_property=property_sentence(None, name))
            for name in self.visible
        ]
        for name in self.hidden if hidden else []:
            test = TestResult(name, "passed", 1.0, 1.0, "", True, 0.6, tested_property=property_sentence(None, name))
            if name in failed:
                literal, kind = failed[name]
                test.outcome, test.points, test.verdict = "failed", 0.0, Verdict.WRONG_ANSWER
                test.message = f"{self.entry_point}({', '.join(self.parameters)}) differs from the reference's"
                lines = [
                    f"  {p}: a function" if p in FUNCTION_PARAMETERS else f"  {p} = {literal}" for p in self.parameters
                ]
                test.failing_input = "\n".join([f"{self.entry_point}({', '.join(self.parameters)})", *lines])
                test.failing_types = [
                    f"{p}: function" if p in FUNCTION_PARAMETERS else f"{p}: {kind}" for p in self.parameters
                ]
            tests.append(test)
        score = round(100.0 * sum(test.points for test in tests) / len(tests), 2)
        verdict = Verdict.WRONG_ANSWER if failed else Verdict.ACCEPTED
        return Report(self.slug, verdict, score, 100.0, tests, duration_s=2.5).to_dict()


def graded(user: User, problem: Problem, kind: str, report: dict[str, Any], at: datetime) -> Submission:
    """A Run or Submit made on the site at ``at`` and graded, stored as the worker stores a
    verdict (``Submission._finish``): its report, and its hidden failures summarised beside it
    by the same helper (``grading.hidden_failures``). Not ``Submission.record_graded``: that
    records a notebook graded by staff, and these were handed in on the site."""
    from webapp import grading
    from webapp.submissions.models import Submission

    submission = Submission.objects.create(
        user=user,
        problem=problem,
        kind=kind,
        code="# a solution\n",
        status=Submission.Status.GRADED,
        verdict=report["verdict"],
        score=report["score"],
        max_score=report["max_score"],
        report=report,
        hidden_failures=grading.hidden_failures(report),
        attempt=1,
        started_at=at,
        finished_at=at + timedelta(seconds=report["duration_s"]),
    )
    # Made then, as the site makes one (its creation is its hand-in): every page tells the same time.
    Submission.objects.filter(pk=submission.pk).update(created_at=at)
    return submission


def within_the_grace(student: User, problem: Problem, tests: Tests, due_at: datetime) -> None:
    """The student's work on ``problem``: a wrong answer (the empty array), then the accepted
    Submit handed in 10 s after the due time, within the grace."""
    from webapp.submissions.models import Progress, Submission

    graded(student, problem, Submission.Kind.RUN, tests.report(hidden=False, failed={}), due_at - timedelta(hours=3))
    wrong = tests.report(hidden=True, failed={tests.on_empty: EMPTY})
    graded(student, problem, Submission.Kind.SUBMIT, wrong, due_at - timedelta(minutes=20))
    right = tests.report(hidden=True, failed={})
    graded(student, problem, Submission.Kind.SUBMIT, right, due_at + timedelta(seconds=10))
    Progress.refresh(student.pk, problem.pk)


def make() -> None:
    # Imported here: ``make screenshots`` reads this module's names before Django is set up.
    from django.contrib.auth.models import User
    from django.utils import timezone

    from webapp.accounts.models import Profile
    from webapp.catalog.models import Problem
    from webapp.courses.instructors import make_instructor
    from webapp.courses.models import Assignment, AssignmentProblem, Course, Extension, Membership, Override
    from webapp.submissions.models import Progress, Submission

    random.seed(7)
    now = timezone.now()
    course = Course.objects.create(
        slug="jax-in-practice",
        title="JAX in practice",
        description="Tracing, compiling and transforming, one week at a time.",
    )
    instructor = account(INSTRUCTOR)
    make_instructor(instructor)  # may create courses: the set-up pages offer it
    Membership.objects.create(course=course, user=instructor, role=Membership.Role.INSTRUCTOR, name=NAMES[INSTRUCTOR])
    Membership.objects.create(course=course, user=account("ta-hopper"), role=Membership.Role.TA)
    students = []
    for number, name in enumerate(STUDENTS):
        student = account(name)
        Membership.objects.create(
            course=course,
            user=student,
            section="Monday" if number % 2 else "Thursday",
            name=NAMES[name],
            email=f"{name}@university.example.edu",
            student_id=f"2026{number + 1:04d}",
        )
        students.append(student)
    for username, zone in ZONES.items():
        Profile.set_time_zone(User.objects.get(username=username), zone)
    # Members since before the term: their hand-ins below are the course's to read.
    course.memberships.update(joined_at=now - timedelta(days=30))
    week = Assignment.objects.create(
        course=course,
        slug="week-1",
        title="Week 1: compiling",
        release_at=now - timedelta(days=10),
        due_at=now - timedelta(days=2),
        late_policy=Assignment.LatePolicy.PENALTY_PER_DAY,
        penalty_percent_per_day=10,
        grace_minutes=5,
    )
    Assignment.objects.create(
        course=course,
        slug="week-2",
        title="Week 2: transforming",
        release_at=now - timedelta(days=1),
        due_at=now + timedelta(days=6),
        late_policy=Assignment.LatePolicy.HARD_CLOSE,
    )
    items = [
        AssignmentProblem.objects.create(assignment=week, problem=Problem.objects.get(slug=slug), position=n, points=10)
        for n, slug in enumerate(PROBLEMS)
    ]
    for n, item in enumerate(items):
        tests = Tests.of(item.problem.slug)
        if item.problem.slug == LATE_BY_SECONDS:
            within_the_grace(students[0], item.problem, tests, week.due_at)
        others = [s for s in students if not (s.username == STUDENT and item.problem.slug == LATE_BY_SECONDS)]
        random.shuffle(others)  # who does what on this problem
        # One never tries it, one only runs the visible tests; of those who submit, on every
        # other problem most fail a hidden property on an empty float32 array (a third on the
        # others), one or two another on bfloat16, and the rest are accepted.
        submitting = len(others) - 2
        on_empty = round(submitting * (0.6 if n % 2 == 0 else 0.3))
        on_bfloat16 = 1 + n % 2
        outcomes = ["none", "run"] + ["empty"] * on_empty + ["bfloat16"] * on_bfloat16
        outcomes += ["accepted"] * (len(others) - len(outcomes))
        for student, outcome in zip(others, outcomes, strict=True):
            if outcome == "none":
                continue
            late = random.random() < 0.15
            end = (
                week.due_at + timedelta(hours=random.randint(1, 40))
                if late
                else week.due_at - timedelta(hours=random.randint(1, 150))
            )
            start = end - timedelta(minutes=random.randint(20, 600))
            graded(student, item.problem, Submission.Kind.RUN, tests.report(hidden=False, failed={}), start)
            if outcome == "empty":
                failures = [{tests.on_empty: EMPTY}] * random.choice([1, 2, 2])
            elif outcome == "bfloat16":
                failures = [{tests.on_bfloat16: BFLOAT16}]
            elif outcome == "accepted":  # after a wrong answer or two on the way, for some
                failures = [{tests.on_empty: EMPTY}] * random.choice([0, 0, 1, 2]) + [{}]
            else:
                failures = []  # ran the visible tests, never submitted
            times = [start + (end - start) * (k + 1) / len(failures) for k in range(len(failures))]
            for failed, at in zip(failures, times, strict=True):
                graded(student, item.problem, Submission.Kind.SUBMIT, tests.report(hidden=True, failed=failed), at)
            Progress.refresh(student.pk, item.problem_id)
    Extension.objects.create(
        assignment=week,
        user=students[STUDENTS.index(EXTENDED)],
        due_at=week.due_at + timedelta(days=3),
        reason="illness",
        granted_by=instructor,
    )
    Override.objects.create(
        item=items[0],
        user=students[STUDENTS.index(OVERRIDDEN)],
        points=8,
        reason="graded by hand after a platform outage",
        created_by=instructor,
    )
