"""A course and its members: who is in it, in which role, and what each role may see of it.

A member is course staff (an instructor or a TA: ``Course.is_course_staff``) or a student.
Course staff are not the site's staff (``User.is_staff``, the admin's accounts): teaching a
course opens its gradebook and its students' work, nothing of the site's.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models, transaction
from django.db.models import Exists, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from webapp.submissions.models import Submission

if TYPE_CHECKING:
    from webapp.courses.gradebook import Gradebook
    from webapp.courses.models.assignment import Assignment
    from webapp.courses.models.roster_upload import RosterUpload
    from webapp.courses.roster import RosterRow

JOINS_PER_HOUR = 10  # new courses one person joins (invite link or invitation)


class RateLimited(Exception):
    """A member's repeatable write refused for now; the message says why. Counted from the
    database's rows, so that every web process sees the same count."""


def new_invite_code() -> str:
    return secrets.token_urlsafe(18)


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

    def is_course_staff(self, user: User) -> bool:
        """Instructors and TAs: they see every student's work in the course."""
        membership = self.membership_of(user)
        return membership is not None and membership.role in Membership.COURSE_STAFF_ROLES

    # The name callers used before ``is_course_staff``; it never meant the site's staff.
    is_staff = is_course_staff

    def is_instructor(self, user: User) -> bool:
        """Instructors alone change the course: its assignments, deadlines and roster."""
        membership = self.membership_of(user)
        return membership is not None and membership.role == Membership.Role.INSTRUCTOR

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
        """Course staff see every assignment; students only those released; others none."""
        if self.is_course_staff(user):
            return self.assignments.all()
        if self.membership_of(user) is None:
            return self.assignments.none()
        return self.assignments.filter(release_at__lte=now)

    def enrol(self, roster: list[RosterRow], *, invited_by: User | None = None, site_url: str = "") -> RosterUpload:
        """Invite every row as a student, here and now, in batches (``manage.py enrol``; the
        roster page does the same in the background). Nobody is enrolled without consent: see
        ``Invitation``. Returns the finished upload, with its counts."""
        # Imported here: the roster upload's module builds on this one.
        from webapp.courses.models.roster_upload import RosterUpload

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
        # Imported here: the gradebook is laid out from the models, this one included.
        from webapp.courses.gradebook import Gradebook

        return Gradebook.of_course(self, section=section, expand=expand)

    def student_work(self) -> models.QuerySet[Submission]:
        """What the course's staff may read of its students' work (code, results, what it
        printed under the visible tests): their Submits and Runs on a problem of one of its
        assignments, handed in from that assignment's release on and from the day the student
        joined the course. Their practice before either, or for another course, stays theirs:
        the release is the course staff's to set, the day they joined is not (a release moved
        back to 2000 reveals nothing). Notebooks the site's staff graded into the course
        (``manage.py autograde --assignment``) were handed in to it, whenever they say."""
        students = self.memberships.filter(role=Membership.Role.STUDENT)
        released = self.assignments.filter(problems=OuterRef("problem"), release_at__lte=OuterRef("hand_in_time"))
        joined = students.filter(user=OuterRef("user")).values("joined_at")[:1]
        return (
            Submission.objects.filter(user__in=students.values("user_id"))
            .annotate(hand_in_time=Coalesce("handed_in_at", "created_at"), joined_at=Subquery(joined))
            .filter(Exists(released))
            .filter(Q(hand_in_time__gte=F("joined_at")) | Q(origin=Submission.Origin.AUTOGRADE))
        )


class Membership(models.Model):
    """One person in one course, in one role (and, for students, a section)."""

    class Role(models.TextChoices):
        INSTRUCTOR = "instructor"  # edits the course, its assignments, roster and extensions
        TA = "ta"  # reads every student's work and the gradebook, regrades; edits nothing
        STUDENT = "student"  # sees the assignments and their own work only

    COURSE_STAFF_ROLES = frozenset({Role.INSTRUCTOR, Role.TA})

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


def refuse_too_many_joins(user: User) -> None:
    """Raises ``RateLimited`` once ``user`` joined ``JOINS_PER_HOUR`` courses in the last hour.
    Called in the transaction that makes the membership: the person's row is locked, so joins
    sent at once are counted one after the other."""
    User.objects.select_for_update().filter(pk=user.pk).first()
    since = timezone.now() - timedelta(hours=1)
    if Membership.objects.filter(user=user, joined_at__gte=since).count() >= JOINS_PER_HOUR:
        raise RateLimited(f"You joined {JOINS_PER_HOUR} courses in the last hour; try again in an hour.")
