"""A course: its members and what each role may see of it, its assignments, and its roster.

The top of the courses' models but for regrades: a course names its members, assignments and
roster uploads, none of which names it back (their foreign keys say ``"Course"``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Exists, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from webapp.courses.models.assignment import Assignment
from webapp.courses.models.membership import Membership, RateLimited, refuse_too_many_joins
from webapp.courses.models.roster_upload import ROSTER_UPLOAD_WINDOW, ROSTER_UPLOADS_PER_WINDOW, RosterUpload
from webapp.courses.roster import RosterRow
from webapp.courses.tasks import enrol_roster
from webapp.submissions.models import Submission


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

    # The courses' own pages beside the courses' (``/courses/<course>/``): a course named so
    # could never be opened.
    RESERVED_SLUGS = frozenset({"new", "join"})

    def clean(self) -> None:
        if self.slug in self.RESERVED_SLUGS:
            raise ValidationError({"slug": f"{self.slug!r} names one of the site's own pages; choose another."})

    def save_created_by(self, creator: User) -> None:
        """Save this new course with ``creator`` as its instructor, both or neither: whoever
        creates a course teaches it."""
        with transaction.atomic():
            self.save()
            Membership.objects.get_or_create(course=self, user=creator, defaults={"role": Membership.Role.INSTRUCTOR})

    def membership_of(self, user: User) -> Membership | None:
        if not user.is_authenticated:
            return None
        return self.memberships.filter(user=user).first()

    def is_course_staff(self, user: User) -> bool:
        """Instructors and TAs: they see every student's work in the course."""
        membership = self.membership_of(user)
        return membership is not None and membership.role in Membership.COURSE_STAFF_ROLES

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

    def join(self, user: User) -> Membership:
        """``user`` joins by the invite link: as a student, unless they are in the course already.
        Raises ``RateLimited`` past ``JOINS_PER_HOUR`` new courses in an hour."""
        with transaction.atomic():
            membership = self.memberships.filter(user=user).first()
            if membership is None:
                refuse_too_many_joins(user)
                membership, _ = Membership.objects.get_or_create(course=self, user=user)
        return membership

    def set_role(self, member: Membership, role: str, *, by: User) -> None:
        """An instructor makes a student a TA or a TA a student. Raises ``ValueError`` saying why
        for anything else: instructors are made by the site (``manage.py instructor``, course
        creation, an LTI launch), and nobody changes their own role."""
        if role not in (Membership.Role.STUDENT, Membership.Role.TA):
            raise ValueError("A member can be made a student or a TA here.")
        if member.user_id == by.pk:
            raise ValueError("You cannot change your own role.")
        if member.role == Membership.Role.INSTRUCTOR:
            raise ValueError(f"{member.user.username} is an instructor of the course; that role is not changed here.")
        if member.role != role:
            member.role = role
            member.save(update_fields=["role"])

    def sections(self) -> list[str]:
        students = self.memberships.filter(role=Membership.Role.STUDENT).exclude(section="")
        return sorted(set(students.values_list("section", flat=True)))

    def student_work(self) -> models.QuerySet[Submission]:
        """What the course's staff may read of its students' work (code, results, what it
        printed under the visible tests): their Submits and Runs on a problem of one of its
        assignments, handed in from that assignment's release on and from the day the student
        joined the course. Their practice before either, or for another course, stays theirs:
        the release is the course staff's to set, the day they joined is not (a release moved
        back to 2000 reveals nothing). Notebooks the site's staff graded into the course
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

    def upload_roster(self, roster: Sequence[RosterRow], *, by: User, site_url: str) -> RosterUpload:
        """Keep a checked roster and queue its invitations on the courses' worker. Raises
        ``RateLimited`` while another upload of the course is under way, or past
        ``ROSTER_UPLOADS_PER_WINDOW`` uploads in ``ROSTER_UPLOAD_WINDOW``."""
        now = timezone.now()
        with transaction.atomic():
            Course.objects.select_for_update().filter(pk=self.pk).first()  # one upload decides at a time
            uploads = RosterUpload.objects.filter(course=self)
            running = [u for u in uploads.filter(status__in=RosterUpload.UNFINISHED) if not u.is_stalled(now)]
            if running:
                raise RateLimited("Another roster of this course is being enrolled; wait until it is done.")
            if uploads.filter(created_at__gte=now - ROSTER_UPLOAD_WINDOW).count() >= ROSTER_UPLOADS_PER_WINDOW:
                minutes = int(ROSTER_UPLOAD_WINDOW.total_seconds() // 60)
                raise RateLimited(
                    f"This course had {ROSTER_UPLOADS_PER_WINDOW} rosters uploaded in the last {minutes} "
                    "minutes; try again later."
                )
            upload = self.record_roster(roster, by=by, site_url=site_url)
            enrol_roster.enqueue(upload.pk)  # in the same transaction: both are kept, or neither
        return upload

    def enrol(self, roster: list[RosterRow], *, invited_by: User | None = None, site_url: str = "") -> RosterUpload:
        """Invite every row as a student, here and now, in batches (``manage.py enrol``; the
        roster page does the same in the background). Nobody is enrolled without consent: see
        ``Invitation``. Returns the finished upload, with its counts."""
        upload = self.record_roster(roster, by=invited_by, site_url=site_url)
        upload.run()
        upload.refresh_from_db()
        return upload

    def record_roster(self, roster: Sequence[RosterRow], *, by: User | None, site_url: str) -> RosterUpload:
        """A checked roster, kept as an upload still to be invited (``RosterUpload.run``)."""
        rows = [row.stored() for row in roster]
        return RosterUpload.objects.create(course=self, uploaded_by=by, site_url=site_url, rows=rows, total=len(rows))
