"""Who is in a course, in which role, and how fast one person may join courses.

A member is course staff (an instructor or a TA: ``Membership.COURSE_STAFF_ROLES``) or a
student. Course staff are not the site's staff (``User.is_staff``, the accounts let into the
admin): teaching a course opens its gradebook and its students' work, nothing of the site's.

The bottom of the courses' models: the others build on it, and it names none of them (its
course is named by the string ``"Course"``, as Django allows).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.utils import timezone

JOINS_PER_HOUR = 10  # new courses one person joins (invite link or invitation)


class RateLimited(Exception):
    """A member's repeatable write refused for now; the message says why. Counted from the
    database's rows, so that every web process sees the same count."""


class Membership(models.Model):
    """One person in one course, in one role (and, for students, a section)."""

    class Role(models.TextChoices):
        INSTRUCTOR = "instructor"  # edits the course, its assignments, roster and extensions
        TA = "ta", "TA"  # reads every student's work and the gradebook, regrades; edits nothing
        STUDENT = "student"  # sees the assignments and their own work only

    COURSE_STAFF_ROLES = frozenset({Role.INSTRUCTOR, Role.TA})

    course = models.ForeignKey("Course", on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=12, choices=Role.choices, default=Role.STUDENT)
    section = models.CharField(max_length=50, blank=True)
    # The course's own record of the person, from its roster (or the platform that enrolled
    # them): shown in the gradebook and its CSV whatever the account calls itself, so the
    # registrar's list matches it. Empty for a member who joined by the invite link.
    name = models.CharField(max_length=150, blank=True)
    email = models.EmailField(blank=True)
    student_id = models.CharField(max_length=50, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (models.UniqueConstraint(fields=("course", "user"), name="one_membership_per_course"),)
        ordering = ("course", "role", "user__username")

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.course}"


def refuse_too_many_joins(user: User) -> None:
    """Raises ``RateLimited`` once ``user`` joined ``JOINS_PER_HOUR`` courses in the last hour.
    Called in the transaction that makes the membership: the person's row is locked, so joins
    sent at once are counted one after the other."""
    User.objects.select_for_update().filter(pk=user.pk).first()
    since = timezone.now() - timedelta(hours=1)
    if Membership.objects.filter(user=user, joined_at__gte=since).count() >= JOINS_PER_HOUR:
        raise RateLimited(f"You joined {JOINS_PER_HOUR} courses in the last hour; try again in an hour.")
