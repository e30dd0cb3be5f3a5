"""What a student has done with each problem: the draft in their editor and their standing.

A standing (``Progress``) is derived from the student's submissions, never written by hand:
``Progress.refresh`` recomputes it whenever a submission is made or graded.
"""

from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import models
from django.db.models import Min

from webapp.catalog.models import Problem
from webapp.grading import Verdict

# A student's status on a problem, as the catalog shows and filters by it.
SOLVED = "solved"
ATTEMPTED = "attempted"
NOT_ATTEMPTED = "not attempted"
STATUSES = (SOLVED, ATTEMPTED, NOT_ATTEMPTED)


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
        verbose_name_plural = "progress"  # a mass noun: Django would say "Progresss"

    @classmethod
    def refresh(cls, user_id: int, problem_id: int) -> None:
        """Recompute a student's standing on a problem from their submissions (regrades included)."""
        # Through the app registry: the submission model calls this, so it is not imported back.
        submission_model = apps.get_model("submissions", "Submission")
        submissions = submission_model.objects.filter(user_id=user_id, problem_id=problem_id)
        solved = submissions.filter(
            kind=submission_model.Kind.SUBMIT, status=submission_model.Status.GRADED, verdict=Verdict.ACCEPTED
        )
        progress, _ = cls.objects.get_or_create(user_id=user_id, problem_id=problem_id)
        progress.attempted_at = submissions.aggregate(first=Min("created_at"))["first"]
        progress.solved_at = solved.aggregate(first=Min("created_at"))["first"]
        progress.save(update_fields=["attempted_at", "solved_at"])

    @classmethod
    def by_problem(cls, user: User | AnonymousUser) -> dict[int, Progress]:
        """A student's standings, by problem id (none for someone signed out)."""
        if not user.is_authenticated:
            return {}
        return {progress.problem_id: progress for progress in cls.objects.filter(user=user)}

    @property
    def status(self) -> str:
        """One of ``STATUSES``: what the catalog filters by."""
        if self.solved_at is not None:
            return SOLVED
        return ATTEMPTED if self.attempted_at else NOT_ATTEMPTED

    @staticmethod
    def status_of(progress: Progress | None) -> str:
        """The status of a standing that may not exist yet (a problem never tried)."""
        return progress.status if progress is not None else NOT_ATTEMPTED

    @property
    def state(self) -> str:
        if self.solved_at is None:
            return self.status
        if self.solution_viewed_at is not None and self.solution_viewed_at < self.solved_at:
            return "solved after viewing the solution"
        return SOLVED

    @property
    def may_see_solution(self) -> bool:
        return self.solved_at is not None or self.solution_viewed_at is not None
