"""A regrade that a course's staff ask for from the gradebook, kept as a record of who asked."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from webapp.catalog.models import Problem
from webapp.courses.models.assignment import Assignment
from webapp.courses.models.course import Course
from webapp.submissions.models import Submission


class Regrade(models.Model):
    """A regrade that the course's staff asked for from the gradebook: of an assignment, one of
    its problems, or one hand-in. It queues the Submits it covers and keeps their ids, so the
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
    def covered(
        cls, assignment: Assignment, *, problem: Problem | None = None, submission: Submission | None = None
    ) -> tuple[models.QuerySet[Submission], str]:
        """The Submits a regrade of ``assignment`` (of one ``problem`` of it, or of the one
        ``submission``) queues, and what it regrades as the page names it: the course's
        students' finished Submits for the assignment, handed in from its release on. The
        gradebook's confirmation counts them before ``start`` queues them."""
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
        return chosen.filter(status__in=(Submission.Status.GRADED, Submission.Status.FAILED)), scope[:300]

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
        """Queue the Submits ``covered`` names for a new grading, and keep the record."""
        finished, scope = cls.covered(assignment, problem=problem, submission=submission)
        ids = Submission.regrade(finished)
        return cls.objects.create(course=assignment.course, scope=scope, submission_ids=ids, requested_by=by)

    def ended_and_total(self) -> tuple[int, int]:
        """How many of its Submits are graded again (or ended otherwise), of how many."""
        ended = Submission.objects.filter(pk__in=self.submission_ids, status__in=Submission.FINISHED_STATUSES).count()
        return ended, len(self.submission_ids)
