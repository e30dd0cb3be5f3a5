"""Week 1 of JAX 101 as the courses' tests set it: a fixed release and due time, the
assignment of two problems worth 10 points each, and hand-ins at chosen times."""

from __future__ import annotations

from datetime import UTC, datetime

from django.contrib.auth.models import User

from tests.webapp.support.people import submission_of
from webapp.catalog.models import Problem
from webapp.courses.models import Assignment, AssignmentProblem, Course
from webapp.submissions.models import Submission

RELEASE = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
DUE = datetime(2026, 9, 8, 23, 59, tzinfo=UTC)


def week_one(course: Course) -> Assignment:
    """Week 1 of ``course``: aot_compiled_sum and batched_dot, 10 points each (the catalog must
    be installed)."""
    assignment = Assignment.objects.create(course=course, slug="week-1", title="Week 1", release_at=RELEASE, due_at=DUE)
    for position, slug in enumerate(["aot_compiled_sum", "batched_dot"]):
        AssignmentProblem.objects.create(
            assignment=assignment, problem=Problem.objects.get(slug=slug), position=position, points=10
        )
    return assignment


def hand_in(user: User, slug: str, at: datetime, score: float, *, status: str = Submission.Status.GRADED) -> Submission:
    """A Submit of ``user``'s handed in at ``at`` that scored ``score`` of 100."""
    return submission_of(user, slug, status=status, score=score, max_score=100.0, handed_in_at=at)
