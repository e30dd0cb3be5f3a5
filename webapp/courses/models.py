"""Courses: who is in one and in which role, its assignments, their deadlines and late policies.

The practice catalog stays open to everyone; a course adds an ordered list of its problems
with points, a release and a due time, and a rule for what a late hand-in is worth. Times are
stored in UTC (``USE_TZ``). A submission counts for an assignment by its hand-in time: when the
site received it, or for an autograded notebook the time staff give on the command line.
"""

from __future__ import annotations

import csv
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
from django.db import models, transaction
from django.db.models import Exists, F, FloatField, Max, OuterRef
from django.db.models.functions import Cast, Coalesce

from grader.spreadsheet import spreadsheet_row
from webapp.catalog.models import Problem
from webapp.submissions.models import Submission


def new_invite_code() -> str:
    return secrets.token_urlsafe(18)


class RosterError(ValueError):
    """A roster file that cannot be read; the message names the line and what is wrong."""


@dataclass(frozen=True)
class RosterRow:
    line: int
    username: str
    email: str
    name: str
    section: str


ROSTER_COLUMNS = ("username", "email", "name", "section")
MAX_ROSTER_BYTES = 2 * 2**20


def read_roster(text: str) -> list[RosterRow]:
    """A roster as CSV with a header naming ``username`` (required), ``email``, ``name`` and
    ``section`` (optional, any order). Raises ``RosterError`` naming the first bad line."""
    if len(text.encode()) > MAX_ROSTER_BYTES:
        raise RosterError(f"the roster is larger than {MAX_ROSTER_BYTES // 2**20} MB")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))  # a spreadsheet's byte-order mark
    header = [name.strip().lower() for name in reader.fieldnames or []]
    if "username" not in header:
        raise RosterError("line 1: the header must name a username column (and may name email, name, section)")
    unknown = [name for name in header if name not in ROSTER_COLUMNS]
    if unknown:
        raise RosterError(f"line 1: unknown column {unknown[0]!r}; the columns are {', '.join(ROSTER_COLUMNS)}")
    reader.fieldnames = header
    rows, seen = [], set()
    for row in reader:
        line = reader.line_num
        values = {name: (row.get(name) or "").strip() for name in ROSTER_COLUMNS}
        if not any(values.values()):
            continue  # a blank line
        username = values["username"]
        if not username or not re.fullmatch(r"[\w.@+-]{1,150}", username):
            raise RosterError(f"line {line}: {username!r} is not a username (letters, digits and @.+-_, at most 150)")
        if username in seen:
            raise RosterError(f"line {line}: {username} is listed twice")
        if values["email"]:
            try:
                validate_email(values["email"])
            except ValidationError:
                raise RosterError(f"line {line}: {values['email']!r} is not an email address") from None
        if len(values["name"]) > 150 or len(values["section"]) > 50:
            raise RosterError(f"line {line}: a name may have 150 characters, a section 50")
        seen.add(username)
        rows.append(RosterRow(line, username, values["email"], values["name"], values["section"]))
    return rows


@dataclass(frozen=True)
class Enrolment:
    """What a roster did: accounts made, students enrolled, and those already in the course."""

    created: list[str]
    enrolled: list[str]
    updated: list[str]
    skipped: list[str]  # staff of the course: a roster never makes them students


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

    @transaction.atomic
    def enrol(self, roster: list[RosterRow]) -> Enrolment:
        """Enrol every row as a student (in its section), making the accounts that are missing
        (without a password: they set one through a password reset, or sign in by LTI)."""
        result = Enrolment([], [], [], [])
        for row in roster:
            first, _, last = row.name.partition(" ")
            user, made = User.objects.get_or_create(
                username=row.username, defaults={"email": row.email, "first_name": first[:150], "last_name": last[:150]}
            )
            if made:
                user.set_unusable_password()
                user.save(update_fields=["password"])
                result.created.append(user.username)
            membership, joined = Membership.objects.get_or_create(
                course=self, user=user, defaults={"section": row.section}
            )
            if joined:
                result.enrolled.append(user.username)
            elif membership.role != Membership.Role.STUDENT:
                result.skipped.append(user.username)
            elif membership.section != row.section:
                membership.section = row.section
                membership.save(update_fields=["section"])
                result.updated.append(user.username)
        return result

    def join(self, user: User) -> Membership:
        """``user`` joins by the invite link: as a student, unless they are in the course already."""
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
                    )
                )
            problems = next((scores[member.user.pk] for a, scores in columns if a == expanded), [])
            rows.append(GradebookRow(member, cells, problems))
        items = list(expanded.items.select_related("problem")) if expanded else []
        return Gradebook(assignments, rows, expanded, items)

    def student_work(self) -> models.QuerySet[Submission]:
        """What the course's staff may read of its students' work: their Submits and Runs on a
        problem of one of its assignments, handed in from that assignment's release on. Their
        practice before it, or for another course, stays theirs."""
        students = self.memberships.filter(role=Membership.Role.STUDENT).values("user_id")
        released = Assignment.objects.filter(
            course=self, problems=OuterRef("problem"), release_at__lte=OuterRef("hand_in_time")
        )
        return (
            Submission.objects.filter(user__in=students)
            .annotate(hand_in_time=Coalesce("handed_in_at", "created_at"))
            .filter(Exists(released))
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

    def is_released(self, now: datetime) -> bool:
        return now >= self.release_at

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
        late policy, against their own due time. Four queries, however many users.

        ``times=False`` (the gradebook, which reads thousands): an on-time hand-in is read back
        as its problem's best fraction alone (``submission_id`` and ``handed_in`` are None)."""
        items = list(self.items.select_related("problem"))
        item_of_problem = {item.problem_id: item for item in items}
        extended = dict(self.extensions.filter(user__in=users).values_list("user_id", "due_at"))
        due_of = {user.pk: max(self.due_at, extended.get(user.pk, self.due_at)) for user in users}
        graded = (
            Submission.objects.filter(
                user__in=users,
                problem__in=list(item_of_problem),
                kind=Submission.Kind.SUBMIT,
                status=Submission.Status.GRADED,
                max_score__gt=0,
            )
            .annotate(hand_in_time=Coalesce("handed_in_at", "created_at"))
            .filter(hand_in_time__gte=self.release_at)
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

    def __str__(self) -> str:
        return f"regrade of {self.scope}"

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
            students = course.memberships.filter(role=Membership.Role.STUDENT).values("user_id")
            chosen = (
                Submission.objects.filter(problem__in=problems, user__in=students, kind=Submission.Kind.SUBMIT)
                .annotate(hand_in_time=Coalesce("handed_in_at", "created_at"))
                .filter(hand_in_time__gte=assignment.release_at)
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
