"""Courses: who is in one and in which role, its assignments, their deadlines and late policies.

The practice catalog stays open to everyone; a course adds an ordered list of its problems
with points, a release and a due time, and a rule for what a late hand-in is worth. Times are
stored in UTC (``USE_TZ``). A submission counts for an assignment by its hand-in time: when the
site received it, or for an autograded notebook the time staff give on the command line.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import math
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, validate_email
from django.db import IntegrityError, models, transaction
from django.db.models import Exists, F, FloatField, Max, OuterRef, Q, Subquery
from django.db.models.functions import Cast, Coalesce, Lower
from django.utils import timezone

from webapp.catalog.models import Problem
from webapp.grading import spreadsheet_row
from webapp.submissions.models import Progress, Submission


def new_invite_code() -> str:
    return secrets.token_urlsafe(18)


class RosterError(ValueError):
    """A roster file that cannot be read; ``problems`` names each bad line and what is wrong
    (the first ``MAX_ROSTER_PROBLEMS`` of them, then how many more)."""

    def __init__(self, problems: str | list[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else problems
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class RosterRow:
    line: int
    username: str
    email: str
    name: str
    section: str


ROSTER_COLUMNS = ("username", "email", "name", "section")
MAX_ROSTER_BYTES = 2 * 2**20
MAX_ROSTER_PROBLEMS = 20  # named one by one; beyond these the page says how many more


def read_roster(text: str) -> list[RosterRow]:
    """A roster as CSV with a header naming ``username`` and ``email`` (required), ``name`` and
    ``section`` (optional, any order). The email is the school's record of the person: their
    invitation goes there. Raises ``RosterError`` naming every bad line (up to a count)."""
    if len(text.encode()) > MAX_ROSTER_BYTES:
        raise RosterError(f"the roster is larger than {MAX_ROSTER_BYTES // 2**20} MB")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))  # a spreadsheet's byte-order mark
    header = [name.strip().lower() for name in reader.fieldnames or []]
    if "username" not in header or "email" not in header:
        raise RosterError("line 1: the header must name a username and an email column (and may name name, section)")
    unknown = [name for name in header if name not in ROSTER_COLUMNS]
    if unknown:
        raise RosterError(f"line 1: unknown column {unknown[0]!r}; the columns are {', '.join(ROSTER_COLUMNS)}")
    reader.fieldnames = header
    rows: list[RosterRow] = []
    problems: list[str] = []
    line_of_username: dict[str, int] = {}
    line_of_email: dict[str, int] = {}
    for row in reader:
        line = reader.line_num
        values = {name: (row.get(name) or "").strip() for name in ROSTER_COLUMNS}
        if not any(values.values()):
            continue  # a blank line
        problem = roster_line_problem(values, line_of_username, line_of_email)
        if problem:
            problems.append(f"line {line}: {problem}")
            continue
        line_of_username[values["username"]] = line
        line_of_email[values["email"].lower()] = line
        rows.append(RosterRow(line, values["username"], values["email"], values["name"], values["section"]))
    if problems:
        named = problems[:MAX_ROSTER_PROBLEMS]
        if len(problems) > len(named):
            named.append(f"and {len(problems) - len(named)} more bad lines")
        raise RosterError(named)
    return rows


def roster_line_problem(values: dict[str, str], line_of_username: dict[str, int], line_of_email: dict[str, int]) -> str:
    """What is wrong with one roster line ("" if nothing), given the lines read before it."""
    username, email = values["username"], values["email"]
    if not username or not re.fullmatch(r"[\w.@+-]{1,150}", username):
        return f"{username!r} is not a username (letters, digits and @.+-_, at most 150)"
    if username in line_of_username:
        return f"{username} is listed twice (first on line {line_of_username[username]})"
    if not email:
        return f"{username} has no email (the invitation to join is sent there)"
    try:
        validate_email(email)
    except ValidationError:
        return f"{email!r} is not an email address"
    if email.lower() in line_of_email:
        return f"{email} is listed twice (first on line {line_of_email[email.lower()]})"
    if len(values["name"]) > 150 or len(values["section"]) > 50:
        return "a name may have 150 characters, a section 50"
    return ""


class Course(models.Model):
    """A course: its staff and students (``Membership``) and its assignments."""

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    # Who opens /courses/join/<code>/ signed in joins as a student; the instructor can change it.
    invite_code = models.CharField(max_length=40, unique=True, default=new_invite_code)
    created_at = models.DateTimeField(auto_now_add=True)

    class EarlySolutions(models.TextChoices):
        """Whether a student may reveal the reference solution of a problem of an assignment
        that is still open for them (solving it first always shows it)."""

        HIDDEN = "hidden", "hidden until the due time"
        SHOWN_AND_MARKED = "marked", "shown, and the gradebook marks who looked"

    early_solutions = models.CharField(
        max_length=10,
        choices=EarlySolutions.choices,
        default=EarlySolutions.HIDDEN,
        help_text="The reference solution of a problem in an open assignment, before its due time.",
    )

    class Meta:
        ordering = ("title",)

    def __str__(self) -> str:
        return self.title

    def membership_of(self, user: User) -> Membership | None:
        if not user.is_authenticated:
            return None
        return self.memberships.filter(user=user).first()

    def is_staff(self, user: User) -> bool:
        """Instructors and TAs: they see every student's work in the course."""
        membership = self.membership_of(user)
        return membership is not None and membership.role in Membership.STAFF_ROLES

    @classmethod
    def instructed_by(cls, user: User) -> models.QuerySet[Course]:
        """The courses ``user`` may change in the admin: those they teach, or all for the
        site's superusers."""
        if user.is_superuser:
            return cls.objects.all()
        if not user.is_authenticated:
            return cls.objects.none()
        return cls.objects.filter(memberships__user=user, memberships__role=Membership.Role.INSTRUCTOR).distinct()

    @classmethod
    def of(cls, user: User) -> models.QuerySet[Course]:
        """The courses ``user`` is a member of, in any role."""
        if not user.is_authenticated:
            return cls.objects.none()
        return cls.objects.filter(memberships__user=user).distinct()

    def visible_assignments(self, user: User, now: datetime) -> models.QuerySet[Assignment]:
        """Staff see every assignment; students only those released; others none."""
        if self.is_staff(user):
            return self.assignments.all()
        if self.membership_of(user) is None:
            return self.assignments.none()
        return self.assignments.filter(release_at__lte=now)

    def enrol(self, roster: list[RosterRow], *, invited_by: User | None = None, site_url: str = "") -> RosterUpload:
        """Invite every row as a student, here and now, in batches (``manage.py enrol``; the
        roster page does the same in the background). Nobody is enrolled without consent: see
        ``Invitation``. Returns the finished upload, with its counts."""
        upload = RosterUpload.record(self, roster, by=invited_by, site_url=site_url)
        upload.run()
        upload.refresh_from_db()
        return upload

    def join(self, user: User) -> Membership:
        """``user`` joins by the invite link: as a student, unless they are in the course already.
        Raises ``RateLimited`` past ``JOINS_PER_HOUR`` new courses in an hour."""
        with transaction.atomic():
            membership = self.memberships.filter(user=user).first()
            if membership is None:
                refuse_too_many_joins(user)
                membership, _ = Membership.objects.get_or_create(course=self, user=user)
        return membership

    def sections(self) -> list[str]:
        students = self.memberships.filter(role=Membership.Role.STUDENT).exclude(section="")
        return sorted(set(students.values_list("section", flat=True)))

    def gradebook(self, *, section: str = "", expand: str = "") -> Gradebook:
        """Every student of the course (of one ``section``, if given) by every assignment,
        and by each problem of the assignment whose slug is ``expand``."""
        students = self.memberships.filter(role=Membership.Role.STUDENT).select_related("user")
        if section:
            students = students.filter(section=section)
        members = list(students.order_by("user__username"))
        users = [member.user for member in members]
        assignments = list(self.assignments.prefetch_related("items"))
        expanded = next((assignment for assignment in assignments if expand and assignment.slug == expand), None)
        # The expanded assignment's hand-ins are read one by one, so each problem's cell links to its own.
        columns = [(a, a.scores(users, times=a == expanded)) for a in assignments]
        extended = set(
            Extension.objects.filter(assignment__course=self, user__in=users).values_list("assignment_id", "user_id")
        )
        seen = {assignment.pk: assignment.solution_seen_by(users) for assignment in assignments}
        rows = []
        for member in members:
            cells = []
            for assignment, scores in columns:
                mine = scores[member.user.pk]
                cells.append(
                    GradebookCell(
                        assignment=assignment,
                        earned=round(sum(score.earned for score in mine), 2),
                        late=any(score.credit is not None and score.credit.late for score in mine),
                        extended=(assignment.pk, member.user.pk) in extended,
                        overridden=any(score.override_reason for score in mine),
                        solution_seen=member.user.pk in seen[assignment.pk],
                    )
                )
            problems = next((scores[member.user.pk] for a, scores in columns if a == expanded), [])
            rows.append(GradebookRow(member, cells, problems))
        items = list(expanded.items.select_related("problem")) if expanded else []
        return Gradebook(assignments, rows, expanded, items)

    def student_work(self) -> models.QuerySet[Submission]:
        """What the course's staff may read of its students' work (code, results, what it
        printed under the visible tests): their Submits and Runs on a problem of one of its
        assignments, handed in from that assignment's release on and from the day the student
        joined the course. Their practice before either, or for another course, stays theirs:
        the release is the staff's to set, the day they joined is not (a release moved back to
        2000 reveals nothing). Notebooks the site's staff graded into the course
        (``manage.py autograde --assignment``) were handed in to it, whenever they say."""
        students = self.memberships.filter(role=Membership.Role.STUDENT)
        released = Assignment.objects.filter(
            course=self, problems=OuterRef("problem"), release_at__lte=OuterRef("hand_in_time")
        )
        joined = students.filter(user=OuterRef("user")).values("joined_at")[:1]
        return (
            Submission.objects.filter(user__in=students.values("user_id"))
            .annotate(hand_in_time=Coalesce("handed_in_at", "created_at"), joined_at=Subquery(joined))
            .filter(Exists(released))
            .filter(Q(hand_in_time__gte=F("joined_at")) | Q(origin=Submission.Origin.AUTOGRADE))
        )

    def is_instructor(self, user: User) -> bool:
        """Instructors alone change the course: its assignments, deadlines and roster."""
        membership = self.membership_of(user)
        return membership is not None and membership.role == Membership.Role.INSTRUCTOR


class Membership(models.Model):
    """One person in one course, in one role (and, for students, a section)."""

    class Role(models.TextChoices):
        INSTRUCTOR = "instructor"  # edits the course, its assignments, roster and extensions
        TA = "ta"  # reads every student's work and the gradebook, regrades; edits nothing
        STUDENT = "student"  # sees the assignments and their own work only

    STAFF_ROLES = frozenset({Role.INSTRUCTOR, Role.TA})

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=12, choices=Role.choices, default=Role.STUDENT)
    section = models.CharField(max_length=50, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (models.UniqueConstraint(fields=("course", "user"), name="one_membership_per_course"),)
        ordering = ("course", "role", "user__username")

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.course}"


@dataclass(frozen=True)
class GradebookCell:
    assignment: Assignment
    earned: float
    late: bool  # a problem's points came from a late hand-in
    extended: bool  # the student has an extension
    overridden: bool = False  # staff set a problem's points by hand
    solution_seen: bool = False  # revealed a problem's solution while the assignment was open for them


@dataclass(frozen=True)
class GradebookRow:
    member: Membership
    cells: list[GradebookCell]
    problems: list[ProblemScore]  # each problem of the expanded assignment, if one is

    @property
    def total(self) -> float:
        return round(sum(cell.earned for cell in self.cells), 2)


@dataclass(frozen=True)
class Gradebook:
    """A course's students by its assignments."""

    assignments: list[Assignment]
    rows: list[GradebookRow]
    expanded: Assignment | None = None  # the assignment shown problem by problem too
    items: list[AssignmentProblem] = field(default_factory=list)  # its problems, in order

    def write_csv(self, out: Any) -> None:
        """One row per student: username, email, name, section, each assignment's points
        (with its late and extension marks in their own columns), the expanded assignment's
        points by problem (``ASSIGNMENT/PROBLEM``), and the total. Names and sections are
        people's own text: no cell is one a spreadsheet would run."""
        writer = csv.writer(out)
        header = ["username", "email", "name", "section"]
        for assignment in self.assignments:
            header += [assignment.slug, f"{assignment.slug} late", f"{assignment.slug} extension"]
        if self.expanded is not None:
            header += [f"{self.expanded.slug}/{item.problem.slug}" for item in self.items]
        writer.writerow(spreadsheet_row([*header, "total"]))
        for row in self.rows:
            user = row.member.user
            line = [user.username, user.email, user.get_full_name(), row.member.section]
            for cell in row.cells:
                line += [f"{cell.earned:g}", "late" if cell.late else "", "extension" if cell.extended else ""]
            line += [f"{score.earned:g}" for score in row.problems]
            writer.writerow(spreadsheet_row([*line, f"{row.total:g}"]))


@dataclass(frozen=True)
class Credit:
    """What a hand-in earns of its score under an assignment's policy, and why."""

    fraction: float  # of the score, 0.0 to 1.0
    late_by: timedelta  # zero when on time
    note: str  # "" when on time; otherwise what the policy did, in the student's words

    @property
    def late(self) -> bool:
        return self.late_by > timedelta(0)


class Assignment(models.Model):
    """An ordered list of problems with points, released and due at given times."""

    class LatePolicy(models.TextChoices):
        NONE = "none", "no penalty (late work is marked late)"
        PENALTY_PER_DAY = "penalty_per_day", "a penalty for each day or part of a day late"
        HARD_CLOSE = "hard_close", "closed at the due time (late work earns nothing)"

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="assignments")
    slug = models.SlugField()
    title = models.CharField(max_length=200)
    release_at = models.DateTimeField(help_text="Students see the assignment from this time on.")
    due_at = models.DateTimeField()
    late_policy = models.CharField(max_length=20, choices=LatePolicy.choices, default=LatePolicy.NONE)
    penalty_percent_per_day = models.PositiveSmallIntegerField(
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="With the per-day penalty: the percentage of the score lost for each day late.",
    )
    problems = models.ManyToManyField(Problem, through="AssignmentProblem", related_name="assignments")

    class Meta:
        constraints = (models.UniqueConstraint(fields=("course", "slug"), name="assignment_slug_unique_in_course"),)
        ordering = ("course", "due_at", "slug")

    def __str__(self) -> str:
        return f"{self.title} ({self.course})"

    # The course's own pages live beside its assignments' (``/courses/<course>/<name>/``).
    RESERVED_SLUGS = frozenset({"gradebook", "roster", "regrade", "regrades", "submissions"})

    def clean(self) -> None:
        if self.release_at and self.due_at and self.due_at <= self.release_at:
            raise ValidationError({"due_at": "The due time must come after the release time."})
        if self.slug in self.RESERVED_SLUGS:
            raise ValidationError({"slug": f"{self.slug!r} names one of the course's own pages; choose another."})

    def due_for(self, user: User) -> datetime:
        """The due time for one student: theirs if they were given an extension."""
        extension = self.extensions.filter(user=user).first()
        return max(self.due_at, extension.due_at) if extension is not None else self.due_at

    def credit(self, handed_in_at: datetime, due_at: datetime) -> Credit:
        """What a hand-in at ``handed_in_at`` earns of its score, against ``due_at``.

        Late work is always graded; the policy decides what it is worth. A day late is any
        part of a day: a minute past the due time costs one day's penalty.
        """
        late_by = max(handed_in_at - due_at, timedelta(0))
        if not late_by:
            return Credit(1.0, late_by, "")
        if self.late_policy == self.LatePolicy.HARD_CLOSE:
            return Credit(0.0, late_by, "handed in after the assignment closed: it earns no points")
        if self.late_policy == self.LatePolicy.PENALTY_PER_DAY:
            days = math.ceil(late_by / timedelta(days=1))
            lost = min(100, days * self.penalty_percent_per_day)
            return Credit((100 - lost) / 100, late_by, f"{days} day{'s' * (days != 1)} late: {lost}% off")
        return Credit(1.0, late_by, "late (no penalty)")

    def problem_scores(self, user: User) -> list[ProblemScore]:
        """Each problem's points for one student (see ``scores``)."""
        return self.scores([user])[user.pk]

    def scores(self, users: Sequence[User], *, times: bool = True) -> dict[int, list[ProblemScore]]:
        """Each problem's points for each of ``users``, by user id: the best of their graded
        Submits handed in from the release on, each worth its score times its credit under the
        late policy, against their own due time (and from the day they joined the course). Four
        queries, however many users.

        ``times=False`` (the gradebook, which reads thousands): an on-time hand-in is read back
        as its problem's best fraction alone (``submission_id`` and ``handed_in`` are None)."""
        items = list(self.items.select_related("problem"))
        item_of_problem = {item.problem_id: item for item in items}
        extended = dict(self.extensions.filter(user__in=users).values_list("user_id", "due_at"))
        due_of = {user.pk: max(self.due_at, extended.get(user.pk, self.due_at)) for user in users}
        # From the release and from the day the student joined: practice before either is theirs
        # alone (``Course.student_work``), and counts for nothing here.
        joined = Membership.objects.filter(course_id=self.course_id, user=OuterRef("user")).values("joined_at")[:1]
        graded = (
            Submission.objects.filter(
                user__in=users,
                problem__in=list(item_of_problem),
                kind=Submission.Kind.SUBMIT,
                status=Submission.Status.GRADED,
                max_score__gt=0,
            )
            .annotate(hand_in_time=Coalesce("handed_in_at", "created_at"), joined_at=Subquery(joined))
            .filter(hand_in_time__gte=self.release_at)
            .filter(Q(hand_in_time__gte=F("joined_at")) | Q(origin=Submission.Origin.AUTOGRADE))
            .order_by("hand_in_time", "id")
        )
        fields = ["id", "user_id", "problem_id", "score", "max_score"]
        best: dict[tuple[int, int], ProblemScore] = {}

        def consider(
            submission_id: int | None, user_id: int, problem_id: int, fraction: float, credit: Credit, at: Any
        ) -> None:
            item = item_of_problem[problem_id]
            earned = round(float(item.points) * fraction * credit.fraction, 2)
            key = (user_id, item.pk)
            if key not in best or earned > best[key].earned:  # ties: the earliest
                best[key] = ProblemScore(item, earned, submission_id, at, credit)

        # Plain rows, not model instances. On time by the assignment's own due time is on time
        # for everyone (an extension only moves it later): no time needs reading back for those,
        # and without times only each problem's best fraction (one row per student and problem).
        on_time = graded.filter(hand_in_time__lte=self.due_at)
        on_time_credit = Credit(1.0, timedelta(0), "")
        if times:
            for submission_id, user_id, problem_id, score, max_score, at in on_time.values_list(
                *fields, "hand_in_time"
            ):
                consider(submission_id, user_id, problem_id, (score or 0.0) / max_score, on_time_credit, at)
        else:
            best_fractions = (
                on_time.order_by()
                .values_list("user_id", "problem_id")
                .annotate(fraction=Max(Cast("score", FloatField()) / F("max_score")))
            )
            for user_id, problem_id, fraction in best_fractions:
                consider(None, user_id, problem_id, fraction or 0.0, on_time_credit, None)
        for submission_id, user_id, problem_id, score, max_score, at in graded.filter(
            hand_in_time__gt=self.due_at
        ).values_list(*fields, "hand_in_time"):
            credit = self.credit(at, due_of[user_id])
            consider(submission_id, user_id, problem_id, (score or 0.0) / max_score, credit, at)
        # Staff's overrides replace what the hand-ins earned: the latest of each student and problem.
        for override in Override.objects.filter(item__in=items, user__in=users).order_by("created_at", "id"):
            item = next(item for item in items if item.pk == override.item_id)
            earned_by_hand_ins = best.get((override.user_id, item.pk))
            best[override.user_id, item.pk] = ProblemScore(
                item,
                float(override.points),
                earned_by_hand_ins.submission_id if earned_by_hand_ins else None,
                earned_by_hand_ins.handed_in if earned_by_hand_ins else None,
                earned_by_hand_ins.credit if earned_by_hand_ins else None,
                override_reason=override.reason,
            )
        return {
            user.pk: [best.get((user.pk, item.pk), ProblemScore(item, 0.0, None, None, None)) for item in items]
            for user in users
        }

    def solution_seen_by(self, users: Sequence[User]) -> set[int]:
        """The ids of ``users`` who revealed the solution of one of its problems while the
        assignment was open for them (from its release to their due time), before solving it.
        A course that hides solutions until then has none; one that shows them marks these."""
        extended = dict(self.extensions.filter(user__in=users).values_list("user_id", "due_at"))
        viewed = Progress.objects.filter(
            user__in=users, problem__in=self.problems.all(), solution_viewed_at__gte=self.release_at
        ).values_list("user_id", "solution_viewed_at", "solved_at")
        return {
            user_id
            for user_id, viewed_at, solved_at in viewed
            if viewed_at is not None
            and viewed_at < max(self.due_at, extended.get(user_id, self.due_at))
            and (solved_at is None or viewed_at < solved_at)
        }

    @property
    def total_points(self) -> float:
        return float(sum(item.points for item in self.items.all()))


@dataclass(frozen=True)
class ProblemScore:
    """One problem of an assignment for one student: what they earned, and from which hand-in."""

    item: AssignmentProblem
    earned: float
    submission_id: int | None  # the hand-in that earned it; None when nothing counted
    handed_in: datetime | None  # its time (None for an on-time one, if not asked for)
    credit: Credit | None
    override_reason: str = ""  # staff set the points by hand (``Override``), for this reason


class AssignmentProblem(models.Model):
    """A problem of an assignment: its place in the list and the points it is worth."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="items")
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="assignment_items")
    position = models.PositiveSmallIntegerField(default=0)
    points = models.DecimalField(max_digits=6, decimal_places=2, default=10, validators=[MinValueValidator(0)])

    class Meta:
        constraints = (models.UniqueConstraint(fields=("assignment", "problem"), name="problem_once_per_assignment"),)
        ordering = ("assignment", "position", "id")

    def __str__(self) -> str:
        return f"{self.problem.slug} ({self.points} points) in {self.assignment}"


class Extension(models.Model):
    """A later due time for one student of one assignment, granted by staff with a reason."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="extensions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="extensions")
    due_at = models.DateTimeField()
    reason = models.CharField(max_length=500)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="extensions_granted"
    )
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (models.UniqueConstraint(fields=("assignment", "user"), name="one_extension_per_student"),)

    def __str__(self) -> str:
        return f"{self.user} until {self.due_at:%Y-%m-%d %H:%M} UTC for {self.assignment}"

    def clean(self) -> None:
        if self.due_at and self.assignment_id and self.due_at <= self.assignment.due_at:
            raise ValidationError({"due_at": "An extension must end after the assignment's own due time."})


class Override(models.Model):
    """Points that staff give one student for one problem of an assignment, by hand, with a
    reason. A verdict or a score is never edited: an override is a record of its own, kept
    with who made it and when; the latest for a student and problem counts."""

    # A record of who decided what: what it points at cannot be deleted from under it (the
    # admin says why, and a problem with overrides stays in its assignment).
    item = models.ForeignKey(AssignmentProblem, on_delete=models.PROTECT, related_name="overrides")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="overrides")
    points = models.DecimalField(max_digits=6, decimal_places=2, validators=[MinValueValidator(0)])
    reason = models.CharField(max_length=500)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="overrides_made"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.points} points for {self.user} on {self.item}"

    def clean(self) -> None:
        if not (self.reason or "").strip():
            raise ValidationError({"reason": "Say why the points are set by hand."})
        if self.item_id and self.points is not None and self.points > self.item.points:
            raise ValidationError({"points": f"At most the problem's {self.item.points} points."})


class Regrade(models.Model):
    """A regrade that staff asked for from the gradebook: of an assignment, one of its
    problems, or one hand-in. It queues the Submits it covers and keeps their ids, so the
    page can show how many are graded again; who asked, and when, is kept too."""

    # A record of who asked for what: kept whatever is deleted (see ``Override``).
    course = models.ForeignKey(Course, on_delete=models.PROTECT, related_name="regrades")
    scope = models.CharField(max_length=300)  # what was regraded, as the page names it
    submission_ids = models.JSONField(default=list)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="regrades_asked"
    )
    requested_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-requested_at", "-id")

    # Each regrade queues up to a whole class's Submits for the graders that students wait on:
    # a course asks for at most this many in a window (counted here, so every web process agrees).
    MAX_PER_WINDOW = 10
    WINDOW = timedelta(minutes=10)

    def __str__(self) -> str:
        return f"regrade of {self.scope}"

    @classmethod
    def too_many(cls, course: Course) -> bool:
        """Whether the course has asked for its most in the window. Called in the transaction
        that starts the next one, with the course's row locked, so that requests sent at once
        are counted one after the other."""
        Course.objects.select_for_update().filter(pk=course.pk).first()
        since = timezone.now() - cls.WINDOW
        return cls.objects.filter(course=course, requested_at__gte=since).count() >= cls.MAX_PER_WINDOW

    @classmethod
    @transaction.atomic
    def start(
        cls,
        assignment: Assignment,
        by: User,
        *,
        problem: Problem | None = None,
        submission: Submission | None = None,
    ) -> Regrade:
        """Queue the course's students' finished Submits for ``assignment`` (handed in from its
        release on), of one ``problem`` of it, or the one ``submission``, for a new grading."""
        course = assignment.course
        if submission is not None:
            chosen = Submission.objects.filter(pk=submission.pk)
            scope = f"{assignment.title}: submission #{submission.pk} of {submission.user.username}"
        else:
            problems = [problem] if problem is not None else list(assignment.problems.all())
            # What the course may read (from the release and from the day each student joined),
            # of this assignment: practice before either is not the course's to grade again.
            chosen = (
                course.student_work()
                .filter(problem__in=problems, kind=Submission.Kind.SUBMIT)
                .filter(
                    Q(handed_in_at__gte=assignment.release_at)
                    | Q(handed_in_at=None, created_at__gte=assignment.release_at)
                )
            )
            scope = f"{assignment.title}: {problem.title}" if problem is not None else assignment.title
        # Graded or failed, not cancelled: a Submit the student withdrew is not theirs to count.
        finished = chosen.filter(status__in=(Submission.Status.GRADED, Submission.Status.FAILED))
        ids = Submission.regrade(finished)
        return cls.objects.create(course=course, scope=scope[:300], submission_ids=ids, requested_by=by)

    def progress(self) -> tuple[int, int]:
        """How many of its Submits are graded again (or ended otherwise), of how many."""
        ended = Submission.objects.filter(pk__in=self.submission_ids, status__in=Submission.FINISHED_STATUSES).count()
        return ended, len(self.submission_ids)


# -- enrolment with consent: invitations, roster uploads, limits ---------------------------------


class RateLimited(Exception):
    """A member's repeatable write refused for now; the message says why. Counted from the
    database's rows, so that every web process sees the same count."""


class InvitationUnusable(Exception):
    """An invitation link that cannot be used (unknown, used or expired); the message says which."""


JOINS_PER_HOUR = 10  # new courses one person joins (invite link or invitation)
ROSTER_UPLOADS_PER_WINDOW = 3  # per course
ROSTER_UPLOAD_WINDOW = timedelta(minutes=10)
RESEND_AFTER = timedelta(minutes=10)  # per invitation
RESENDS_PER_HOUR = 50  # per course
INVITATION_DAYS = 14
ROSTER_BATCH = 100  # rows per transaction: each is a short write, so nobody else waits long
# An unfinished upload silent this long may be resumed: well above a batch's worst case (100
# emails through a slow relay, each up to its 10 s timeout), so a live run is never taken for a
# stalled one and run twice; and an upload no worker has taken for as long is resumed too.
UPLOAD_STALLED_AFTER = timedelta(minutes=30)


def refuse_too_many_joins(user: User) -> None:
    """Called in the transaction that makes the membership: the person's row is locked, so
    joins sent at once are counted one after the other."""
    User.objects.select_for_update().filter(pk=user.pk).first()
    since = timezone.now() - timedelta(hours=1)
    if Membership.objects.filter(user=user, joined_at__gte=since).count() >= JOINS_PER_HOUR:
        raise RateLimited(f"You joined {JOINS_PER_HOUR} courses in the last hour; try again in an hour.")


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def unguessable_digest() -> str:
    """A digest no link has: an invitation's until its email is sent with a real token."""
    return token_digest(secrets.token_urlsafe(32))


class Invitation(models.Model):
    """A roster line's invitation to join a course as a student, sent to the roster's email.

    A roster never enrols an account by its username: the username may be anyone's (a person
    may sign up first under the name a roster will list). Where the username is free the
    roster makes the account (``account``, without a password) and the email's link activates
    it: its holder chooses the password and joins. Where it is taken, no account is touched:
    whoever holds the link joins with their own account, signed in. Only the digest of the
    link's token is stored; a link works once, until ``expires_at``.
    """

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="invitations")
    upload = models.ForeignKey(
        "RosterUpload", on_delete=models.SET_NULL, null=True, blank=True, related_name="invitations"
    )
    username = models.CharField(max_length=150)  # as the roster lists it: its account may be anyone's
    email = models.EmailField()  # the school's record of the person: the link goes there
    name = models.CharField(max_length=150, blank=True)
    section = models.CharField(max_length=50, blank=True)
    # The account the roster made for this line, to be activated; None where the name was taken.
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    token_digest = models.CharField(max_length=64, unique=True, default=unguessable_digest)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="invitations_sent"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)  # None: its email is still to be sent
    sends = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitations_accepted",
    )

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=("course", "username"), name="one_invitation_per_roster_username"),
        )
        ordering = ("course", "username")

    def __str__(self) -> str:
        return f"{self.username} <{self.email}> to {self.course}"

    @property
    def activates(self) -> bool:
        """The link sets the password of the account the roster made (not yet done)."""
        return self.account is not None and not self.account.has_usable_password()

    def state(self, now: datetime) -> str:
        if self.accepted_at is not None:
            return "accepted"
        if self.sent_at is None:
            return "to be sent"
        return "expired" if self.expires_at <= now else "pending"

    @classmethod
    def find(cls, token: str) -> Invitation:
        """The invitation of a link's token; ``InvitationUnusable`` if none, used or expired."""
        digest = token_digest(token[:200])
        found = cls.objects.filter(token_digest=digest).select_related("course", "account").first()
        # The lookup is by digest; the comparison of the digests is in constant time all the same.
        if found is None or not hmac.compare_digest(found.token_digest, digest):
            raise InvitationUnusable("This link is not one of ours: check that it was copied whole.")
        found.refuse_if_unusable(timezone.now())
        return found

    def refuse_if_unusable(self, now: datetime) -> None:
        if self.accepted_at is not None:
            raise InvitationUnusable("This link was used already: it works once.")
        if self.expires_at <= now:
            raise InvitationUnusable("This link has expired. Ask the course's instructor to send it again.")

    def link(self, site_url: str, token: str) -> str:
        from django.urls import reverse

        return site_url.rstrip("/") + reverse("courses:invitation", args=(token,))

    def accept(self, user: User) -> Membership:
        """``user`` (signed in, or just activated) joins the course as a student, by this
        invitation: once, before it expires."""
        now = timezone.now()
        with transaction.atomic():
            membership = Membership.objects.filter(course=self.course, user=user).first()
            if membership is None:
                refuse_too_many_joins(user)
            taken = Invitation.objects.filter(
                pk=self.pk, accepted_at__isnull=True, sent_at__isnull=False, expires_at__gt=now
            ).update(accepted_at=now, accepted_by=user)
            if not taken:  # used or expired meanwhile (by another tab, or a second click)
                self.refresh_from_db()
                self.refuse_if_unusable(now)
                raise InvitationUnusable("This link cannot be used.")
            if membership is None:
                membership, _ = Membership.objects.get_or_create(
                    course=self.course, user=user, defaults={"section": self.section}
                )
            elif membership.role == Membership.Role.STUDENT and self.section and membership.section != self.section:
                membership.section = self.section
                membership.save(update_fields=["section"])
        self.accepted_at, self.accepted_by = now, user
        return membership

    def activate(self, password_form: Any) -> User:
        """The account the roster made gets the password its holder chose (a valid
        ``SetPasswordForm`` of it) and joins the course: both, or neither."""
        with transaction.atomic():
            user: User = password_form.save()
            self.accept(user)
        return user

    def resend(self, site_url: str) -> None:
        """A new link by email (the old one stops working), at most once in ``RESEND_AFTER``
        per invitation and ``RESENDS_PER_HOUR`` per course."""
        now = timezone.now()
        if self.accepted_at is not None:
            raise InvitationUnusable(f"{self.username}'s invitation was accepted already.")
        sending = RosterUpload.objects.filter(invitations=self, status__in=RosterUpload.UNFINISHED)
        if self.sent_at is None and sending.exists():
            # Its roster's run is about to email it: a new link now would make that email's dead.
            raise InvitationUnusable(f"{self.username}'s invitation is still being sent with its roster.")
        resent = Invitation.objects.filter(course=self.course_id, sends__gt=1, sent_at__gte=now - timedelta(hours=1))
        if resent.count() >= RESENDS_PER_HOUR:
            raise RateLimited(f"This course resent {RESENDS_PER_HOUR} invitations in the last hour; try again later.")
        # The claim: of two clicks at once, one resends.
        claimed = (
            Invitation.objects.filter(pk=self.pk, accepted_at__isnull=True)
            .filter(Q(sent_at__isnull=True) | Q(sent_at__lte=now - RESEND_AFTER))
            .update(sent_at=now)
        )
        if not claimed:
            minutes = int(RESEND_AFTER.total_seconds() // 60)
            raise RateLimited(f"The invitation to {self.email} was sent less than {minutes} minutes ago.")
        self.deliver([self], site_url)

    @classmethod
    def deliver(cls, invitations: Sequence[Invitation], site_url: str, tokens: Sequence[str] = ()) -> int:
        """Email each of ``invitations`` its link (one connection for them all); the number sent.

        ``tokens``: those whose digests the invitations were just stored with; without them,
        new ones are stored first. Either way the digest is kept before the email goes: an
        email that then fails is sent again by a retry with a new token, and the first link
        never works."""
        from django.core.mail import get_connection

        from webapp.courses.mail import invitation_email

        if not tokens:
            tokens = [secrets.token_urlsafe(32) for _ in invitations]
            for invitation, token in zip(invitations, tokens, strict=True):
                invitation.token_digest = token_digest(token)
            Invitation.objects.bulk_update(list(invitations), ["token_digest"])  # one short write for them all
        messages, sent = [], []
        for invitation, token in zip(invitations, tokens, strict=True):
            messages.append(invitation_email(invitation, invitation.link(site_url, token), days=INVITATION_DAYS))
            sent.append(invitation.pk)
        if messages:
            get_connection().send_messages(messages)  # an error fails the run, to be retried
        now = timezone.now()
        cls.objects.filter(pk__in=sent).update(
            sent_at=now, expires_at=now + timedelta(days=INVITATION_DAYS), sends=F("sends") + 1
        )
        return len(sent)


class RosterUpload(models.Model):
    """A roster file an instructor uploaded (or ``manage.py enrol`` read), invited in the
    background in batches of ``ROSTER_BATCH`` rows, each its own short transaction.

    The file is checked whole before this record is made (nothing of a bad file is kept).
    ``done`` counts the rows invited, batch by batch, moved by a conditional update: a run that
    is retried or resumed goes on from there and never invites a row twice, and an email is
    sent once per invitation (``Invitation.sent_at``)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"  # it stopped part way: retrying goes on from where it stopped

    UNFINISHED = (Status.QUEUED, Status.RUNNING)

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="roster_uploads")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(default=timezone.now)  # moved by every batch: a running one is alive
    site_url = models.CharField(max_length=200, blank=True)  # the links' address, as the uploader reached the site
    rows = models.JSONField(default=list)  # [line, username, email, name, section] per row
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    accounts_made = models.PositiveIntegerField(default=0)  # free usernames: made, to be activated
    invited = models.PositiveIntegerField(default=0)  # taken usernames: invited, nobody's account touched
    listed_before = models.PositiveIntegerField(default=0)  # invited already (their section follows the roster)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"roster of {self.total} for {self.course} ({self.status})"

    def is_stalled(self, now: datetime) -> bool:
        return self.status in self.UNFINISHED and self.updated_at < now - UPLOAD_STALLED_AFTER

    @property
    def may_resume(self) -> bool:
        return self.status == self.Status.FAILED or self.is_stalled(timezone.now())

    @classmethod
    def record(cls, course: Course, roster: Sequence[RosterRow], *, by: User | None, site_url: str) -> RosterUpload:
        rows = [[row.line, row.username, row.email, row.name, row.section] for row in roster]
        return cls.objects.create(course=course, uploaded_by=by, site_url=site_url, rows=rows, total=len(rows))

    @classmethod
    def start(cls, course: Course, roster: Sequence[RosterRow], *, by: User, site_url: str) -> RosterUpload:
        """Keep a checked roster and queue its invitations on the courses' worker. Raises
        ``RateLimited`` while another upload of the course is under way, or past
        ``ROSTER_UPLOADS_PER_WINDOW`` uploads in ``ROSTER_UPLOAD_WINDOW``."""
        from webapp.courses.tasks import enrol_roster

        now = timezone.now()
        with transaction.atomic():
            Course.objects.select_for_update().filter(pk=course.pk).first()  # one upload decides at a time
            uploads = cls.objects.filter(course=course)
            running = [u for u in uploads.filter(status__in=cls.UNFINISHED) if not u.is_stalled(now)]
            if running:
                raise RateLimited("Another roster of this course is being enrolled; wait until it is done.")
            if uploads.filter(created_at__gte=now - ROSTER_UPLOAD_WINDOW).count() >= ROSTER_UPLOADS_PER_WINDOW:
                minutes = int(ROSTER_UPLOAD_WINDOW.total_seconds() // 60)
                raise RateLimited(
                    f"This course had {ROSTER_UPLOADS_PER_WINDOW} rosters uploaded in the last {minutes} "
                    "minutes; try again later."
                )
            upload = cls.record(course, roster, by=by, site_url=site_url)
            enrol_roster.enqueue(upload.pk)  # in the same transaction: both are kept, or neither
        return upload

    def resume(self) -> None:
        """Queue a failed (or stalled) upload again: it goes on from its last whole batch."""
        from webapp.courses.tasks import enrol_roster

        now = timezone.now()
        stalled = Q(status__in=self.UNFINISHED, updated_at__lt=now - UPLOAD_STALLED_AFTER)
        with transaction.atomic():
            moved = (
                RosterUpload.objects.filter(pk=self.pk)
                .filter(Q(status=self.Status.FAILED) | stalled)
                .update(status=self.Status.QUEUED, updated_at=now)
            )
            if not moved:
                raise RateLimited("This roster is not stopped: there is nothing to resume.")
            enrol_roster.enqueue(self.pk)

    def run(self) -> str:
        """Invite the rows from ``done`` on, batch by batch, then send what is unsent; on an
        error, stop as ``FAILED`` with the error kept (``resume`` goes on from there)."""
        claimed = RosterUpload.objects.filter(pk=self.pk, status=self.Status.QUEUED).update(
            status=self.Status.RUNNING, updated_at=timezone.now(), error=""
        )
        if not claimed:
            return "not queued"
        self.refresh_from_db()
        try:
            self.send_unsent()  # those a failed run kept but did not email
            while self.done < self.total:
                made = self.invite_batch(self.done)
                if made is None:
                    return "taken over by another run"
                if made:
                    Invitation.deliver([invitation for invitation, _ in made], self.site_url, [t for _, t in made])
                self.refresh_from_db()
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:1000]
            RosterUpload.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(
                status=self.Status.FAILED, error=error, updated_at=timezone.now()
            )
            raise
        RosterUpload.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(
            status=self.Status.DONE, updated_at=timezone.now()
        )
        return f"{self.total} rows: {self.accounts_made} accounts made, {self.invited} invited"

    def invite_batch(self, start: int) -> list[tuple[Invitation, str]] | None:
        """Invitations (and the accounts of free usernames) for the rows from ``start``, in one
        transaction that moves ``done`` on: the new invitations with their links' tokens, to be
        emailed; None if another run moved ``done`` first."""
        rows = self.rows[start : start + ROSTER_BATCH]
        with transaction.atomic():
            moved = RosterUpload.objects.filter(pk=self.pk, status=self.Status.RUNNING, done=start).update(
                done=start + len(rows), updated_at=timezone.now()
            )
            if not moved:
                return None
            fresh, before = self.invite_rows(rows)
            made = sum(invitation.account is not None for invitation, _ in fresh)
            RosterUpload.objects.filter(pk=self.pk).update(
                accounts_made=F("accounts_made") + made,
                invited=F("invited") + len(fresh) - made,
                listed_before=F("listed_before") + before,
            )
        return fresh

    def invite_rows(self, rows: list[list[Any]]) -> tuple[list[tuple[Invitation, str]], int]:
        usernames = [row[1] for row in rows]
        known = {i.username: i for i in Invitation.objects.filter(course=self.course_id, username__in=usernames)}
        # Taken whatever the case: a self-made "Alice" keeps the roster from making "alice".
        taken = set(
            User.objects.annotate(lower=Lower("username"))
            .filter(lower__in=[name.lower() for name in usernames])
            .values_list("lower", flat=True)
        )
        now = timezone.now()
        before = 0
        fresh: list[tuple[Invitation, str]] = []
        accounts = self.make_accounts([row for row in rows if row[1] not in known and row[1].lower() not in taken])
        for _line, username, email, name, section in rows:
            listed = known.get(username)
            if listed is not None:  # the roster names a section; the rest was settled before
                before += 1
                if listed.section != section:
                    Invitation.objects.filter(pk=listed.pk).update(section=section)
                    if listed.accepted_by_id is not None:
                        Membership.objects.filter(
                            course=self.course_id, user=listed.accepted_by_id, role=Membership.Role.STUDENT
                        ).update(section=section)
                continue
            token = secrets.token_urlsafe(32)
            invitation = Invitation(
                course=self.course,
                upload=self,
                username=username,
                email=email,
                name=name,
                section=section,
                account=accounts.get(username),
                token_digest=token_digest(token),
                invited_by_id=self.uploaded_by_id,
                expires_at=now + timedelta(days=INVITATION_DAYS),
            )
            fresh.append((invitation, token))
        Invitation.objects.bulk_create([invitation for invitation, _ in fresh])
        return fresh, before

    @staticmethod
    def make_accounts(rows: list[list[Any]]) -> dict[str, User]:
        """Accounts without a password for the rows' free usernames, by username. One insert
        for them all; if someone took one of the names meanwhile, one by one, and that name is
        theirs (its line an invitation like any other)."""
        users = []
        for _line, username, email, name, _section in rows:
            first, _, last = name.partition(" ")
            user = User(username=username, email=email, first_name=first[:150], last_name=last[:150])
            user.set_unusable_password()
            users.append(user)
        try:
            with transaction.atomic():  # a savepoint: the batch goes on without the taken name
                User.objects.bulk_create(users)
        except IntegrityError:
            made = []
            for user in users:
                try:
                    with transaction.atomic():
                        user.save()
                except IntegrityError:
                    continue
                made.append(user)
            users = made
        # bulk_create sets the ids on PostgreSQL and SQLite; read them back where it did not.
        if any(user.pk is None for user in users):
            users = list(User.objects.filter(username__in=[user.username for user in users]))
        return {user.username: user for user in users}

    def send_unsent(self) -> int:
        """Email this upload's invitations whose email is still to be sent."""
        sent = 0
        while True:
            unsent = self.invitations.filter(sent_at__isnull=True, accepted_at__isnull=True)
            batch = list(unsent.select_related("course", "account")[:ROSTER_BATCH])
            delivered = Invitation.deliver(batch, self.site_url) if batch else 0
            if not delivered:
                return sent
            sent += delivered
            RosterUpload.objects.filter(pk=self.pk).update(updated_at=timezone.now())
