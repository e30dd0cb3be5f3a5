"""Who is who around a course in the web tests, how a test signs one of them in, and the work
they hand in.

The people themselves are fixtures (``tests/webapp/conftest.py``): the course's ``owner`` (its
instructor), a ``peer`` (another course's instructor), an ``outsider`` (in neither course), and
the course's ``ta`` and ``course_student``. This module holds what those fixtures and the tests
share: one password, one way to make a member, one way to sign a test client in, and one way to
write a submission straight to the database.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from webapp.catalog.models import Problem
from webapp.courses.models import Course, Membership
from webapp.submissions.models import Submission

PASSWORD = "a-long-password-1"
# Members join before any term the tests set (the courses' tests release in September 2026): a
# course reads its students' work from the day they joined, and these have been there all along.
LONG_AGO = datetime(2026, 1, 1, tzinfo=UTC)
SOME_CODE = "def f(x):\n    return x\n"


def signed_in(user: User | None, client: Client | None = None) -> Client:
    """A test client signed in as ``user`` (``client`` if given, else a new one); for ``None``,
    a visitor who is not signed in."""
    client = client if client is not None else Client()
    if user is not None:
        client.force_login(user)
    return client


def member(course: Course, user: User, role: str = Membership.Role.STUDENT, *, joined: datetime = LONG_AGO) -> User:
    """Make ``user`` a member of ``course`` since ``joined`` (a membership made now would start
    now, and hide what they handed in before)."""
    membership = Membership.objects.create(course=course, user=user, role=role)
    Membership.objects.filter(pk=membership.pk).update(joined_at=joined)
    return user


def enrol(course: Course, username: str, role: str = Membership.Role.STUDENT, *, joined: datetime = LONG_AGO) -> User:
    """A new account ``username``, a member of ``course`` since ``joined``."""
    return member(course, User.objects.create_user(username, password=PASSWORD), role, joined=joined)


def submission_of(
    user: User,
    slug: str,
    *,
    kind: str = Submission.Kind.SUBMIT,
    status: str = Submission.Status.GRADED,
    code: str = SOME_CODE,
    **fields: Any,
) -> Submission:
    """A submission of ``user``'s to problem ``slug``, written as it stands after grading (or in
    ``status``), with any other fields of the model as given."""
    problem = Problem.objects.get(slug=slug)
    return Submission.objects.create(user=user, problem=problem, kind=kind, code=code, status=status, **fields)
