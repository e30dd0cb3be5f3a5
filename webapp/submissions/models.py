"""Submissions and what a student has done with each problem: drafts, attempts, solutions seen."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models, transaction
from django.db.models import Max, Min
from django.utils import timezone

from webapp.catalog.models import Problem


class Submission(models.Model):
    """One Run (visible tests) or Submit (hidden tests too), from queued to its verdict."""

    class Kind(models.TextChoices):
        RUN = "run"
        SUBMIT = "submit"

    class Origin(models.TextChoices):
        SITE = "site"  # the editor on a problem's page
        AUTOGRADE = "autograde"  # a notebook graded by staff (``manage.py autograde``)

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        GRADED = "graded"
        # The platform failed to grade it, several times over: not the student's fault.
        FAILED = "failed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="submissions")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    code = models.TextField()
    # A submission made as a notebook is graded as Jupyter runs it, from this JSON (``code``
    # then holds its code cells, for reading); empty for code typed on the site.
    notebook = models.TextField(blank=True)
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.SITE)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    verdict = models.CharField(max_length=40, blank=True)
    score = models.FloatField(null=True, blank=True)
    max_score = models.FloatField(null=True, blank=True)
    report = models.JSONField(null=True, blank=True)
    # Each hand-over to a worker is an attempt; only the current attempt may write a verdict,
    # so a worker that was given up for dead can never overwrite its successor's result.
    attempt = models.PositiveIntegerField(default=0)
    # How often the current grading lost its worker (a regrade starts again from 0): after
    # a few, the platform gives up on it rather than crash worker after worker.
    interruptions = models.PositiveIntegerField(default=0)
    task_id = models.CharField(max_length=64, blank=True)
    worker = models.CharField(max_length=100, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = (
            models.Index(fields=["user", "problem", "-created_at"]),
            models.Index(fields=["status", "heartbeat_at"]),
        )

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} of {self.problem.slug} by {self.user}"

    @classmethod
    def record_graded(
        cls, user: User, problem: Problem, report: dict[str, Any], *, code: str, notebook: str = ""
    ) -> Submission:
        """Record a Submit graded elsewhere (a notebook graded by staff) and update the standing.

        It is a Submit like one made on the site: it counts for the gradebook and for solving,
        and ``regrade`` grades it again from its notebook.
        """
        now = timezone.now()
        with transaction.atomic():
            submission = cls.objects.create(
                user=user,
                problem=problem,
                kind=cls.Kind.SUBMIT,
                origin=cls.Origin.AUTOGRADE,
                code=code,
                notebook=notebook,
                status=cls.Status.GRADED,
                verdict=report["verdict"],
                score=report["score"],
                max_score=report["max_score"],
                report=report,
                attempt=1,
                started_at=now,
                finished_at=now,
            )
            Progress.refresh(user.pk, problem.pk)
        return submission

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.GRADED, self.Status.FAILED)

    @property
    def accepted(self) -> bool:
        return self.status == self.Status.GRADED and self.verdict == "accepted"

    def to_json(self, *, for_staff: bool = False) -> dict[str, Any]:
        """What the owner's page shows, live: the state, then every test's outcome.

        What the submission printed while hidden tests ran would tell the student their inputs:
        only staff see it.
        """
        report = self.report or {}
        staff_only = {"hidden_output": report.get("hidden_output", "")} if for_staff else {}
        return {
            "id": self.pk,
            "kind": self.kind,
            "status": self.status,
            "finished": self.finished,
            "verdict": self.verdict,
            "score": self.score,
            "max_score": self.max_score,
            "message": report.get("message", ""),
            "tests": report.get("tests", []),
            "output": report.get("output", ""),
            "duration_s": report.get("duration_s"),
            "created_at": self.created_at.isoformat(),
            **staff_only,
        }


class Draft(models.Model):
    """The code a student last had in the editor, kept per problem."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drafts")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="drafts")
    code = models.TextField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = (models.UniqueConstraint(fields=["user", "problem"], name="one_draft_per_problem"),)


class Progress(models.Model):
    """A student's standing on one problem: attempted, solved, and whether the solution was seen first."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="progress")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="progress")
    attempted_at = models.DateTimeField(null=True, blank=True)
    solved_at = models.DateTimeField(null=True, blank=True)
    solution_viewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = (models.UniqueConstraint(fields=["user", "problem"], name="one_progress_per_problem"),)

    @classmethod
    def refresh(cls, user_id: int, problem_id: int) -> None:
        """Recompute a student's standing on a problem from their submissions (regrades included)."""
        submissions = Submission.objects.filter(user_id=user_id, problem_id=problem_id)
        solved = submissions.filter(kind=Submission.Kind.SUBMIT, status=Submission.Status.GRADED, verdict="accepted")
        progress, _ = cls.objects.get_or_create(user_id=user_id, problem_id=problem_id)
        progress.attempted_at = submissions.aggregate(first=Min("created_at"))["first"]
        progress.solved_at = solved.aggregate(first=Min("created_at"))["first"]
        progress.save(update_fields=["attempted_at", "solved_at"])

    @property
    def state(self) -> str:
        if self.solved_at is None:
            return "attempted" if self.attempted_at else "not attempted"
        if self.solution_viewed_at is not None and self.solution_viewed_at < self.solved_at:
            return "solved after viewing the solution"
        return "solved"

    @property
    def may_see_solution(self) -> bool:
        return self.solved_at is not None or self.solution_viewed_at is not None


class GradebookStudent(User):
    """A student as the gradebook shows them (the admin's gradebook page hangs on this)."""

    class Meta:
        proxy = True
        verbose_name = "gradebook"
        verbose_name_plural = "gradebook"


def gradebook(problems: list[Problem] | None = None) -> tuple[list[Problem], list[tuple[User, list[float | None]]]]:
    """Students × problems: each cell the best score of the student's graded Submits (None: none).

    Students are the active accounts that are not staff, and anyone who submitted; problems
    are the catalog's, in its order, unless given.
    """
    problems = list(problems if problems is not None else Problem.objects.all())
    best = {
        (row["user_id"], row["problem_id"]): row["best"]
        for row in Submission.objects.filter(
            kind=Submission.Kind.SUBMIT, status=Submission.Status.GRADED, problem__in=problems
        )
        .values("user_id", "problem_id")
        .annotate(best=Max("score"))
    }
    submitted = {user_id for user_id, _ in best}
    students = User.objects.filter(models.Q(is_active=True, is_staff=False) | models.Q(pk__in=submitted))
    rows = [
        (student, [best.get((student.pk, problem.pk)) for problem in problems])
        for student in students.order_by("username")
    ]
    return problems, rows
