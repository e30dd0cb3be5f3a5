"""A course's assignments: their problems and points, release and due times, and what each
student earned in them (the best hand-in under the late policy, or the points set by hand).

Times are stored in UTC (``USE_TZ``). A submission counts for an assignment by its hand-in
time: when the site received it, or for an autograded notebook the time the site's staff give
on the command line.

An assignment names its course by the string ``"Course"``: the course's module builds on this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.db.models import Count, F, FloatField, Max, OuterRef, Q, Subquery
from django.db.models.functions import Cast, Coalesce

from webapp.accounts.clock import moment
from webapp.catalog.models import Problem
from webapp.courses.late_policy import ON_TIME, Credit, LatePolicy, late_credit
from webapp.courses.models.membership import Membership
from webapp.submissions.models import Progress, Submission


class Assignment(models.Model):
    """An ordered list of problems with points, released and due at given times."""

    LatePolicy = LatePolicy  # its choices, as ``Assignment.LatePolicy.HARD_CLOSE``

    course = models.ForeignKey("Course", on_delete=models.CASCADE, related_name="assignments")
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
    # A hand-in this soon after the due time is on time: a click at 23:59:58 reaches the server
    # late. Lateness, and what it costs, counts from the end of the grace period.
    grace_minutes = models.PositiveSmallIntegerField(
        default=0,
        validators=[MaxValueValidator(24 * 60)],
        help_text="Minutes after the due time during which a hand-in still counts as on time.",
    )
    problems = models.ManyToManyField(Problem, through="AssignmentProblem", related_name="assignments")

    class Meta:
        constraints = (models.UniqueConstraint(fields=("course", "slug"), name="assignment_slug_unique_in_course"),)
        ordering = ("course", "due_at", "slug")

    def __str__(self) -> str:
        return f"{self.title} ({self.course})"

    # The course's own pages live beside its assignments' (``/courses/<course>/<name>/``).
    RESERVED_SLUGS = frozenset({"gradebook", "roster", "regrade", "regrades", "submissions", "edit"})

    def clean(self) -> None:
        if self.release_at and self.due_at and self.due_at <= self.release_at:
            raise ValidationError({"due_at": "The due time must come after the release time."})
        if self.slug in self.RESERVED_SLUGS:
            raise ValidationError({"slug": f"{self.slug!r} names one of the course's own pages; choose another."})

    def check_problems(self, chosen: Sequence[tuple[Problem, Decimal]]) -> None:
        """Raises ``ValidationError``, naming every problem, where ``chosen`` (the problems and
        their points, in order) would undo an override: the points some student was given by
        hand stay within their problem's, and a problem with overrides stays in the assignment
        (they point at it: ``Override.item``)."""
        if self.pk is None:
            return
        points_of = {problem.pk: points for problem, points in chosen}
        refusals = []
        held = (
            self.items.filter(overrides__isnull=False)
            .values_list("problem_id", "problem__title", "problem__slug")
            .annotate(most=Max("overrides__points"), students=Count("overrides__user", distinct=True))
        )
        for problem_id, title, slug, most, count in held.order_by("position"):
            students = f"{count} student{'s' * (count != 1)}"
            if problem_id not in points_of:
                refusals.append(f"{title} ({slug}) has points set by hand for {students}: it stays in the assignment.")
            elif points_of[problem_id] < most:
                refusals.append(
                    f"{title} ({slug}) is worth at least {most.normalize():f} points: points set by hand for "
                    f"{students} give that much."
                )
        if refusals:
            raise ValidationError(refusals)

    @transaction.atomic
    def set_problems(self, chosen: Sequence[tuple[Problem, Decimal]]) -> None:
        """Make the assignment's problems ``chosen`` (each with its points), in that order
        (positions 0, 1, ...). A problem kept keeps its row, and the overrides that point at it;
        ``check_problems`` refuses what would undo one."""
        self.check_problems(chosen)
        kept = {item.problem_id: item for item in self.items.all()}
        self.items.exclude(problem__in=[problem for problem, _ in chosen]).delete()
        for position, (problem, points) in enumerate(chosen):
            item = kept.get(problem.pk) or AssignmentProblem(assignment=self, problem=problem)
            item.position, item.points = position, points
            item.save()

    def due_for(self, user: User) -> datetime:
        """The due time for one student: theirs if they were given an extension."""
        extension = self.extensions.filter(user=user).first()
        return max(self.due_at, extension.due_at) if extension is not None else self.due_at

    def credit(self, handed_in_at: datetime, due_at: datetime) -> Credit:
        """What a hand-in at ``handed_in_at`` earns of its score, against ``due_at``: late work
        is always graded; the assignment's late policy and grace period (``late_credit``)
        decide its worth, and its note says so."""
        grace = timedelta(minutes=self.grace_minutes)
        return late_credit(self.late_policy, self.penalty_percent_per_day, handed_in_at, due_at, grace=grace)

    def problem_scores(self, user: User) -> list[ProblemScore]:
        """Each problem's points for one student (see ``scores``)."""
        return self.scores([user])[user.pk]

    @property
    def reference(self) -> str:
        """How a link names the assignment its problem page was opened from
        (``?assignment=jax-101/week-1``): the course's slug and its own, neither holding a slash."""
        return f"{self.course.slug}/{self.slug}"

    def score_of(self, user: User, problem: Problem) -> ProblemScore | None:
        """One problem's points for one student (None when the problem is not in the assignment)."""
        return next((score for score in self.problem_scores(user) if score.item.problem_id == problem.pk), None)

    def neighbours(self, problem: Problem) -> tuple[Problem | None, Problem | None]:
        """The problems before and after ``problem`` in the assignment's order (None at either
        end, and both None when the problem is not in it): where its problem pages lead."""
        ordered = [item.problem for item in self.items.select_related("problem")]
        position = next((index for index, other in enumerate(ordered) if other.pk == problem.pk), None)
        if position is None:
            return None, None
        return (
            ordered[position - 1] if position > 0 else None,
            ordered[position + 1] if position + 1 < len(ordered) else None,
        )

    @property
    def late_rule(self) -> str:
        """The late policy and the grace period in one sentence, as the student reads them."""
        return f"Late work: {self.late_terms}."

    @property
    def late_terms(self) -> str:
        """The late policy and the grace period, for a column headed "Late work"."""
        policy = self.get_late_policy_display()
        if self.late_policy == LatePolicy.PENALTY_PER_DAY:
            policy += f", {self.penalty_percent_per_day}% a day"
        if self.grace_minutes:
            grace = f"a hand-in up to {self.grace_minutes} minute{'s' * (self.grace_minutes != 1)} after the due "
            grace += "time counts as on time"
        else:
            grace = "no grace period"
        return f"{policy}; {grace}"

    def scores(self, users: Sequence[User], *, times: bool = True) -> dict[int, list[ProblemScore]]:
        """Each problem's points for each of ``users``, by user id: the best of their graded
        Submits handed in from the release on, each worth its score times its credit under the
        late policy, against their own due time (and from the day they joined the course). Five
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
        # Those after it, within the grace period too, go through ``credit``: on time or not,
        # each carries the sentence that says how late it came.
        on_time = graded.filter(hand_in_time__lte=self.due_at)
        if times:
            for submission_id, user_id, problem_id, score, max_score, at in on_time.values_list(
                *fields, "hand_in_time"
            ):
                consider(submission_id, user_id, problem_id, (score or 0.0) / max_score, ON_TIME, at)
        else:
            best_fractions = (
                on_time.order_by()
                .values_list("user_id", "problem_id")
                .annotate(fraction=Max(Cast("score", FloatField()) / F("max_score")))
            )
            for user_id, problem_id, fraction in best_fractions:
                consider(None, user_id, problem_id, fraction or 0.0, ON_TIME, None)
        for submission_id, user_id, problem_id, score, max_score, at in graded.filter(
            hand_in_time__gt=self.due_at
        ).values_list(*fields, "hand_in_time"):
            credit = self.credit(at, due_of[user_id])
            consider(submission_id, user_id, problem_id, (score or 0.0) / max_score, credit, at)
        # The course staff's overrides replace what the hand-ins earned: the latest of each
        # student and problem.
        overrides = Override.objects.filter(item__in=items, user__in=users).select_related("created_by")
        for override in overrides.order_by("created_at", "id"):
            item = next(item for item in items if item.pk == override.item_id)
            earned_by_hand_ins = best.get((override.user_id, item.pk))
            best[override.user_id, item.pk] = ProblemScore(
                item,
                float(override.points),
                earned_by_hand_ins.submission_id if earned_by_hand_ins else None,
                earned_by_hand_ins.handed_in if earned_by_hand_ins else None,
                earned_by_hand_ins.credit if earned_by_hand_ins else None,
                override_reason=override.reason,
                override_by=override.created_by,
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
        # Each student's own standing on each problem (``Progress``): when they solved it and
        # when they revealed its solution.
        standings = Progress.objects.filter(
            user__in=users, problem__in=self.problems.all(), solution_viewed_at__gte=self.release_at
        ).values_list("user_id", "solution_viewed_at", "solved_at")
        return {
            user_id
            for user_id, viewed_at, solved_at in standings
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
    override_reason: str = ""  # the course's staff set the points by hand (``Override``), for this reason
    override_by: User | None = None  # who set them (None when the account is gone or unrecorded)

    @property
    def override_note(self) -> str:
        """The override as the student reads it: "8 points set by grace: a regrade by hand; the
        late penalty no longer applies." ("" without one). The penalty is named only when the
        hand-in the points replace lost some of its score for being late."""
        if not self.override_reason:
            return ""
        points = f"{self.earned:.2f}".rstrip("0").rstrip(".")
        by = (self.override_by.get_full_name() or self.override_by.username) if self.override_by else ""
        note = f"{points} point{'s' * (points != '1')} set by {by or 'the course staff'}: "
        note += self.override_reason.strip().rstrip(".")
        if self.credit is not None and self.credit.late and self.credit.fraction < 1:
            note += "; the late penalty no longer applies"
        return note + "."


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
    """A later due time for one student of one assignment, granted by the course's staff with a
    reason."""

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
        return f"{self.user} until {moment(self.due_at)} for {self.assignment}"

    def clean(self) -> None:
        if self.due_at and self.assignment_id and self.due_at <= self.assignment.due_at:
            raise ValidationError({"due_at": "An extension must end after the assignment's own due time."})


class Override(models.Model):
    """Points that the course's staff give one student for one problem of an assignment, by
    hand, with a reason. A verdict or a score is never edited: an override is a record of its
    own, kept with who made it and when; the latest for a student and problem counts."""

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
