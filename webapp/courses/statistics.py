"""Problem statistics for a course's staff: how the class did on each problem of an assignment,
and which hidden property its best hand-ins failed most, on which inputs.

What counts is what the course's staff may read (``Course.student_work``: the students' Runs and
Submits on the course's problems, handed in from a release and from the day they joined), from
this assignment's release on, as ``Assignment.scores`` counts it. Per problem:

- *tried*: students with a Run or a Submit; *submitted*: with a graded Submit; *solved*: with
  an accepted one;
- the median number of graded Submits up to and with the first accepted one (of those who
  solved it), and of all their graded Submits (of those who did not);
- the median time from a student's first Run or Submit of the problem to their first accept;
- for each hidden test (a property, with its sentence): the share of the students who submitted
  whose best hand-in (the highest score; of equal scores, the latest) failed it, the inputs it
  failed on most often, by type and shape, and up to three of those hand-ins.

Each graded Submit carries its hidden failures already summarised (``Submission.hidden_failures``,
written with its report): a page reads those, and one report per problem for the properties'
sentences, never every report. Property names, sentences and input types are text from a
report: capped and printable when they were summarised, and the CSV quotes what a spreadsheet
would run. Never what a submission printed under the hidden tests.
"""

from __future__ import annotations

import csv
import json
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db.models import F, FloatField, Func, Min, Q, QuerySet, TextField
from django.db.models.functions import Cast, Coalesce

from webapp.accounts.clock import duration
from webapp.courses.models import Assignment, AssignmentProblem, Course, Membership
from webapp.grading import Verdict, hidden_properties, level_for_staff, spreadsheet_row
from webapp.submissions.models import Submission

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

EXAMPLES_PER_PROPERTY = 3
INPUTS_PER_PROPERTY = 3
NO_INPUT = "no input (failed before calling the code)"


@dataclass(frozen=True)
class PropertyStatistics:
    """One hidden test of a problem, as the class's best hand-ins met it."""

    name: str
    sentence: str  # the property it checks, in a sentence ("" where no report told it)
    failed: int  # students whose best hand-in failed it
    share: float  # of the students who submitted
    inputs: list[tuple[str, int]]  # the inputs it failed on most often, by type and shape, with counts
    examples: list[int]  # ids of best hand-ins that failed it (course staff read them on courses:submission)

    @property
    def percent(self) -> str:
        return f"{self.share * 100:.0f}%"


@dataclass(frozen=True)
class ProblemStatistics:
    """How the class did on one problem of an assignment."""

    item: AssignmentProblem
    tried: int
    submitted: int
    solved: int
    median_submits_to_accept: float | None  # of those who solved it
    median_submits_unsolved: float | None  # of those who submitted but never solved it
    median_time_to_accept: timedelta | None  # first Run or Submit to first accept, of those who solved it
    no_hidden_tests: int  # best hand-ins under which no hidden test ran (they failed to load, say)
    properties: list[PropertyStatistics]  # the most failed first

    @property
    def median_time_text(self) -> str:
        return "" if self.median_time_to_accept is None else duration(self.median_time_to_accept)

    @property
    def level(self) -> str:
        """The rubric's level and its evidence, this class's solve rate among it: a problem most of
        the class solves (or few do) reads a level easier (or harder) than its label."""
        return level_for_staff(self.item.problem.slug, attempts=self.tried, solved=self.solved)

    @property
    def most_failed(self) -> PropertyStatistics | None:
        """The property most of the class failed, if any best hand-in failed one."""
        return self.properties[0] if self.properties and self.properties[0].failed else None


@dataclass
class _Student:
    """One student's graded Submits of one problem, read in hand-in order."""

    submits: int = 0
    submits_to_accept: int | None = None  # graded Submits up to and with the first accepted one
    # (score fraction, submission id, hidden failures): read as JSON text, decoded once read.
    best: tuple[float, int, Any] | None = None


@dataclass(frozen=True)
class AssignmentStatistics:
    """An assignment's problems, each with the class's statistics."""

    assignment: Assignment
    students: int  # enrolled as students
    tried: int  # tried one of its problems at least
    solved_all: int  # solved every one of its problems
    problems: list[ProblemStatistics] = field(default_factory=list)

    @classmethod
    def of(cls, assignment: Assignment) -> AssignmentStatistics:
        """The statistics of ``assignment``'s problems over its course's students. Five queries
        (one reads a report per problem), however many students and hand-ins."""
        course: Course = assignment.course
        students = course.memberships.filter(role=Membership.Role.STUDENT).count()
        items = list(assignment.items.select_related("problem"))
        counted = _counted_work(course, assignment, [item.problem_id for item in items])
        spans = _spans_to_accept(counted)
        by_problem: dict[int, dict[int, _Student]] = {item.problem_id: {} for item in items}
        # The graded Submits as plain rows in hand-in order, without their times (20,000
        # datetimes cost more than all the rest), their failures as text, decoded for the best
        # hand-ins only.
        rows = (
            counted.filter(kind=Submission.Kind.SUBMIT, status=Submission.Status.GRADED)
            .order_by(F("hand_in_time").asc(), "id")
            .values_list(
                "id", "user_id", "problem_id", "verdict", "score", "max_score", Cast("hidden_failures", TextField())
            )
        )
        for submission_id, user_id, problem_id, verdict, score, max_score, failures in rows:
            student = by_problem[problem_id].get(user_id)
            if student is None:
                student = by_problem[problem_id][user_id] = _Student()
            student.submits += 1
            if verdict == Verdict.ACCEPTED and student.submits_to_accept is None:
                student.submits_to_accept = student.submits
            fraction = (score or 0.0) / max_score if max_score else 0.0
            if student.best is None or fraction >= student.best[0]:  # ties: the latest
                student.best = (fraction, submission_id, failures)
        decoded: dict[str, Any] = {}  # most best hand-ins fail alike: each text is decoded once
        for work_of in by_problem.values():
            for student in work_of.values():
                if student.best is not None and student.best[2] is not None:
                    text = student.best[2]
                    failures = decoded[text] if text in decoded else decoded.setdefault(text, json.loads(text))
                    student.best = (student.best[0], student.best[1], failures)
        sentences = _property_sentences(by_problem)
        problems = [
            _problem_statistics(
                item, by_problem[item.problem_id], sentences[item.problem_id], spans.get(item.problem_id, {})
            )
            for item in items
        ]
        tried = set().union(*(set(spans_of) for spans_of in spans.values()))
        solved_all = (
            set.intersection(
                *({user for user, s in work_of.items() if s.submits_to_accept} for work_of in by_problem.values())
            )
            if by_problem
            else set()
        )
        return cls(assignment, students, len(tried), len(solved_all), problems)

    def write_csv(self, out: SupportsWrite[str], submission_url: Callable[[int], str]) -> None:
        """One row per problem and hidden property (a problem without one gets a row of its own),
        with the problem's figures repeated on each; ``submission_url`` makes an example's link.
        Names and sentences come from reports: no cell is one a spreadsheet would run."""
        writer = csv.writer(out)
        writer.writerow(
            spreadsheet_row(
                [
                    "assignment",
                    "problem",
                    "students",
                    "tried",
                    "submitted",
                    "solved",
                    "median submits to first accept",
                    "median submits of those who did not solve it",
                    "median minutes to first accept",
                    "best hand-ins that ran no hidden test",
                    "property",
                    "property sentence",
                    "failed",
                    "share failed",
                    "inputs failed on",
                    "examples",
                ]
            )
        )
        for problem in self.problems:
            minutes = problem.median_time_to_accept
            figures = [
                self.assignment.slug,
                problem.item.problem.slug,
                self.students,
                problem.tried,
                problem.submitted,
                problem.solved,
                _number(problem.median_submits_to_accept),
                _number(problem.median_submits_unsolved),
                "" if minutes is None else _number(round(minutes.total_seconds() / 60, 1)),
                problem.no_hidden_tests,
            ]
            if not problem.properties:
                writer.writerow(spreadsheet_row([*figures, "", "", "", "", "", ""]))
            for prop in problem.properties:
                inputs = "; ".join(f"{kind} x {count}" for kind, count in prop.inputs)
                examples = " ".join(submission_url(pk) for pk in prop.examples)
                row = [*figures, prop.name, prop.sentence, prop.failed, f"{prop.share:.3f}", inputs, examples]
                writer.writerow(spreadsheet_row(row))


def current_assignment(assignments: list[Assignment], now: datetime) -> Assignment | None:
    """The assignment the page opens on: the one due last among those already due (what staff
    look back on), else the one released last, else the first."""
    due = [assignment for assignment in assignments if assignment.due_at <= now]
    if due:
        return max(due, key=lambda assignment: (assignment.due_at, assignment.pk))
    released = [assignment for assignment in assignments if assignment.release_at <= now]
    if released:
        return max(released, key=lambda assignment: (assignment.release_at, assignment.pk))
    return assignments[0] if assignments else None


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _counted_work(course: Course, assignment: Assignment, problem_ids: list[int]) -> QuerySet[Submission]:
    """The course's students' Runs and Submits of the assignment's problems that count: handed
    in from its release and from the day the student joined (a notebook staff graded into the
    course whenever it says), as ``Assignment.scores`` counts them. Each is work the course's
    staff may read (``Course.student_work``: a problem of a released assignment of the course),
    so the examples link to pages they open.

    One join to the student's membership, in one ``filter``, so that its course, role and day
    joined are those of the same membership: no subquery for each of 20,000 rows."""
    return (
        Submission.objects.annotate(hand_in_time=Coalesce("handed_in_at", "created_at"))
        .filter(
            Q(hand_in_time__gte=F("user__memberships__joined_at")) | Q(origin=Submission.Origin.AUTOGRADE),
            problem__in=problem_ids,
            hand_in_time__gte=assignment.release_at,
            user__memberships__course=course,
            user__memberships__role=Membership.Role.STUDENT,
        )
        .order_by()
    )


class EpochSeconds(Func):
    """A time as seconds since 1970, worked out by the database itself: spans between times
    then cost a subtraction, not a datetime made in Python for each of thousands of rows."""

    template = "CAST(EXTRACT(EPOCH FROM %(expressions)s) AS double precision)"  # PostgreSQL's
    output_field = FloatField()

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        # Stored as ISO 8601 text in UTC, which julianday() reads (to the millisecond).
        return self.as_sql(
            compiler, connection, template="((julianday(%(expressions)s) - 2440587.5) * 86400.0)", **extra
        )


def _spans_to_accept(counted: QuerySet[Submission]) -> dict[int, dict[int, float | None]]:
    """Who tried each problem (a Run or a Submit that counts), by problem and student: the
    seconds from their first Run or Submit to their first accepted Submit, or None for those
    who have none. One row per student and problem."""
    accepted = Q(kind=Submission.Kind.SUBMIT, status=Submission.Status.GRADED, verdict=Verdict.ACCEPTED)
    seconds = EpochSeconds("hand_in_time")
    groups = (
        counted.values("user_id", "problem_id")
        .annotate(first=Min(seconds), first_accept=Min(seconds, filter=accepted))
        .values_list("problem_id", "user_id", "first", "first_accept")
    )
    spans: dict[int, dict[int, float | None]] = {}
    for problem_id, user_id, first, first_accept in groups:
        # To the millisecond: SQLite's julianday() reads no finer.
        span = None if first_accept is None else round(float(first_accept) - float(first), 3)
        spans.setdefault(problem_id, {})[user_id] = span
    return spans


def _property_sentences(by_problem: dict[int, dict[int, _Student]]) -> dict[int, list[tuple[str, str]]]:
    """Each problem's hidden tests with their sentences, in the tests' order, from one report per
    problem: the latest accepted best hand-in (it ran and passed them all), or else the latest
    best hand-in under which hidden tests ran."""
    chosen: dict[int, int] = {}
    for problem_id, work_of in by_problem.items():
        candidates = [s.best for s in work_of.values() if s.best is not None and isinstance(s.best[2], list)]
        if candidates:
            # Passed every hidden test first, then the latest made (its tests are the newest).
            chosen[problem_id] = max(candidates, key=lambda best: (not best[2], best[1]))[1]
    sentences: dict[int, list[tuple[str, str]]] = {problem_id: [] for problem_id in by_problem}
    for problem_id, report in Submission.objects.filter(pk__in=list(chosen.values())).values_list(
        "problem_id", "report"
    ):
        sentences[problem_id] = hidden_properties(report)
    return sentences


def _median(values: list[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def _problem_statistics(
    item: AssignmentProblem,
    work_of: dict[int, _Student],
    sentences: list[tuple[str, str]],
    spans: dict[int, float | None],
) -> ProblemStatistics:
    solvers = [s for s in work_of.values() if s.submits_to_accept is not None]
    # Every student with a graded Submit has a best one; in the order of their accounts, so that
    # the examples are the same from one reading to the next.
    bests = [(student, student.best) for _, student in sorted(work_of.items()) if student.best is not None]
    failed: Counter[str] = Counter()
    inputs: dict[str, Counter[str]] = {}
    examples: dict[str, list[int]] = {}
    no_hidden_tests = 0
    for _, (_, submission_id, failures) in bests:
        if not isinstance(failures, list):
            no_hidden_tests += 1
            continue
        seen = set()
        for failure in failures:
            if not isinstance(failure, list) or not failure or failure[0] in seen:
                continue  # a test told twice in one report counts once for the student
            name = str(failure[0])
            seen.add(name)
            failed[name] += 1
            inputs.setdefault(name, Counter())[", ".join(str(kind) for kind in failure[1:]) or NO_INPUT] += 1
            if len(examples.setdefault(name, [])) < EXAMPLES_PER_PROPERTY:
                examples[name].append(submission_id)
    order = {name: position for position, (name, _) in enumerate(sentences)}
    told = dict(sentences)
    names = [*told, *(name for name in failed if name not in told)]
    names.sort(key=lambda name: (-failed[name], order.get(name, len(order)), name))
    properties = [
        PropertyStatistics(
            name=name,
            sentence=told.get(name, ""),
            failed=failed[name],
            share=failed[name] / len(bests) if bests else 0.0,
            inputs=inputs[name].most_common(INPUTS_PER_PROPERTY) if name in inputs else [],
            examples=examples.get(name, []),
        )
        for name in names
    ]
    unsolved = [float(student.submits) for student, _ in bests if student.submits_to_accept is None]
    median_seconds = _median([span for span in spans.values() if span is not None])
    return ProblemStatistics(
        item=item,
        tried=len(spans),
        submitted=len(bests),
        solved=len(solvers),
        median_submits_to_accept=_median([float(s.submits_to_accept or 0) for s in solvers]),
        median_submits_unsolved=_median(unsolved),
        median_time_to_accept=None if median_seconds is None else timedelta(seconds=median_seconds),
        no_hidden_tests=no_hidden_tests,
        properties=properties,
    )
