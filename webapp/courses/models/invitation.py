"""A roster line's invitation to join a course: enrolment with the account owner's consent.

Its link is the only secret: the token goes out by email and only its digest is kept. Its
course and the roster upload that made it are named by strings (``"Course"``,
``"RosterUpload"``): their modules build on this one.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone

from webapp.courses.models.membership import Membership, RateLimited, refuse_too_many_joins

RESEND_AFTER = timedelta(minutes=10)  # per invitation
RESENDS_PER_HOUR = 50  # per course
INVITATION_DAYS = 14


# The course's record of a person, as a roster line gives it and a membership keeps it.
RECORD_FIELDS = ("name", "email", "student_id", "section")


def updated_record(record: Any, newer: dict[str, str]) -> list[str]:
    """Give ``record`` (an invitation or a membership) the ``newer`` roster's values; the names
    of the fields changed. A value the newer roster leaves empty keeps the one known (a roster
    without a student id column does not erase the ids an earlier one gave)."""
    changed = [name for name in RECORD_FIELDS if newer.get(name) and getattr(record, name) != newer[name]]
    for name in changed:
        setattr(record, name, newer[name])
    return changed


def keep_record(membership: Membership, record: dict[str, str]) -> None:
    """A student's membership takes a roster line's record; course staff keep theirs (a roster
    lists the class: an instructor who accepts a student's line stays as they were)."""
    if membership.role != Membership.Role.STUDENT:
        return
    changed = updated_record(membership, record)
    if changed:
        membership.save(update_fields=changed)


class InvitationUnusable(Exception):
    """An invitation link that cannot be used (unknown, used or expired); the message says which."""


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def unguessable_digest() -> str:
    """A digest no link has: an invitation's until its email is sent with a real token."""
    return token_digest(secrets.token_urlsafe(32))


class Invitation(models.Model):
    """A roster line's invitation to join a course as a student, sent to the roster's email.

    A roster never enrols an account by its username: the username may be anyone's (a person
    may sign up first under the name a roster will list). Where the username is free the
    roster makes the account (``account``, without a password) and the email's link activates
    it: its holder chooses the password and joins. Where it is taken, no account is touched:
    whoever holds the link joins with their own account, signed in. Only the digest of the
    link's token is stored; a link works once, until ``expires_at``.
    """

    course = models.ForeignKey("Course", on_delete=models.CASCADE, related_name="invitations")
    upload = models.ForeignKey(
        "RosterUpload", on_delete=models.SET_NULL, null=True, blank=True, related_name="invitations"
    )
    username = models.CharField(max_length=150)  # as the roster lists it: its account may be anyone's
    email = models.EmailField()  # the school's record of the person: the link goes there
    name = models.CharField(max_length=150, blank=True)
    section = models.CharField(max_length=50, blank=True)
    student_id = models.CharField(max_length=50, blank=True)  # the school's, as the roster lists it
    # The account the roster made for this line, to be activated; None where the name was taken.
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    token_digest = models.CharField(max_length=64, unique=True, default=unguessable_digest)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="invitations_sent"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)  # None: its email is still to be sent
    sends = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitations_accepted",
    )

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=("course", "username"), name="one_invitation_per_roster_username"),
        )
        ordering = ("course", "username")

    def __str__(self) -> str:
        return f"{self.username} <{self.email}> to {self.course}"

    @property
    def activates(self) -> bool:
        """The link sets the password of the account the roster made (not yet done)."""
        return self.account is not None and not self.account.has_usable_password()

    def state(self, now: datetime) -> str:
        if self.accepted_at is not None:
            return "accepted"
        if self.sent_at is None:
            return "to be sent"
        return "expired" if self.expires_at <= now else "pending"

    @classmethod
    def find(cls, token: str) -> Invitation:
        """The invitation of a link's token; ``InvitationUnusable`` if none, used or expired."""
        digest = token_digest(token[:200])
        found = cls.objects.filter(token_digest=digest).select_related("course", "account").first()
        # The lookup is by digest; the comparison of the digests is in constant time all the same.
        if found is None or not hmac.compare_digest(found.token_digest, digest):
            raise InvitationUnusable("This link is not one of ours: check that it was copied whole.")
        found.refuse_if_unusable(timezone.now())
        return found

    def refuse_if_unusable(self, now: datetime) -> None:
        if self.accepted_at is not None:
            raise InvitationUnusable("This link was used already: it works once.")
        if self.expires_at <= now:
            raise InvitationUnusable("This link has expired. Ask the course's instructor to send it again.")

    def link(self, site_url: str, token: str) -> str:
        from django.urls import reverse

        return site_url.rstrip("/") + reverse("courses:invitation", args=(token,))

    def accept(self, user: User) -> Membership:
        """``user`` (signed in, or just activated) joins the course as a student, by this
        invitation: once, before it expires. The membership keeps the roster's record of the
        person (name, email, student id, section), whatever the account calls itself; one who
        was a student of the course already has their record updated from it."""
        now = timezone.now()
        with transaction.atomic():
            membership = Membership.objects.filter(course=self.course, user=user).first()
            if membership is None:
                refuse_too_many_joins(user)
            taken = Invitation.objects.filter(
                pk=self.pk, accepted_at__isnull=True, sent_at__isnull=False, expires_at__gt=now
            ).update(accepted_at=now, accepted_by=user)
            if not taken:  # used or expired meanwhile (by another tab, or a second click)
                self.refresh_from_db()
                self.refuse_if_unusable(now)
                raise InvitationUnusable("This link cannot be used.")
            # Read after the row is ours: a roster uploaded meanwhile may have updated the record
            # (it locks the invitations it updates, so its change is whole before this reads it).
            record = Invitation.objects.filter(pk=self.pk).values(*RECORD_FIELDS).get()
            if membership is None:
                membership, made = Membership.objects.get_or_create(course=self.course, user=user, defaults=record)
                if not made:  # joined by the invite link meanwhile
                    keep_record(membership, record)
            else:
                keep_record(membership, record)
        self.accepted_at, self.accepted_by = now, user
        return membership

    def activate(self, password_form: Any) -> User:
        """The account the roster made gets the password its holder chose (a valid
        ``SetPasswordForm`` of it) and joins the course: both, or neither."""
        with transaction.atomic():
            user: User = password_form.save()
            self.accept(user)
        return user

    def resend(self, site_url: str) -> None:
        """A new link by email (the old one stops working), at most once in ``RESEND_AFTER``
        per invitation and ``RESENDS_PER_HOUR`` per course."""
        now = timezone.now()
        if self.accepted_at is not None:
            raise InvitationUnusable(f"{self.username}'s invitation was accepted already.")
        if self.sent_at is None and self.roster_still_sending():
            # Its roster's run is about to email it: a new link now would make that email's dead.
            raise InvitationUnusable(f"{self.username}'s invitation is still being sent with its roster.")
        resent = Invitation.objects.filter(course=self.course_id, sends__gt=1, sent_at__gte=now - timedelta(hours=1))
        if resent.count() >= RESENDS_PER_HOUR:
            raise RateLimited(f"This course resent {RESENDS_PER_HOUR} invitations in the last hour; try again later.")
        # The claim: of two clicks at once, one resends.
        claimed = (
            Invitation.objects.filter(pk=self.pk, accepted_at__isnull=True)
            .filter(Q(sent_at__isnull=True) | Q(sent_at__lte=now - RESEND_AFTER))
            .update(sent_at=now)
        )
        if not claimed:
            minutes = int(RESEND_AFTER.total_seconds() // 60)
            raise RateLimited(f"The invitation to {self.email} was sent less than {minutes} minutes ago.")
        self.deliver([self], site_url)

    def roster_still_sending(self) -> bool:
        """Whether the roster upload that made it is still running (or queued to), as the
        database has it now: that run emails the invitations it made."""
        # Read through the relation: the roster upload's module builds on this one.
        now_stored = Invitation.objects.filter(pk=self.pk).select_related("upload").first()
        upload = now_stored.upload if now_stored is not None else None
        return upload is not None and upload.status in upload.UNFINISHED

    @classmethod
    def deliver(cls, invitations: Sequence[Invitation], site_url: str, tokens: Sequence[str] = ()) -> int:
        """Email each of ``invitations`` its link (one connection for them all); the number sent.

        ``tokens``: those whose digests the invitations were just stored with; without them,
        new ones are stored first. Either way the digest is kept before the email goes: an
        email that then fails is sent again by a retry with a new token, and the first link
        never works."""
        from django.core.mail import get_connection

        from webapp.courses.mail import invitation_email

        if not tokens:
            tokens = [secrets.token_urlsafe(32) for _ in invitations]
            for invitation, token in zip(invitations, tokens, strict=True):
                invitation.token_digest = token_digest(token)
            Invitation.objects.bulk_update(list(invitations), ["token_digest"])  # one short write for them all
        messages, sent = [], []
        for invitation, token in zip(invitations, tokens, strict=True):
            message = invitation_email(
                to=invitation.email,
                name=invitation.name,
                username=invitation.username,
                course_title=invitation.course.title,
                activates=invitation.activates,
                link=invitation.link(site_url, token),
                days=INVITATION_DAYS,
            )
            messages.append(message)
            sent.append(invitation.pk)
        if messages:
            get_connection().send_messages(messages)  # an error fails the run, to be retried
        now = timezone.now()
        cls.objects.filter(pk__in=sent).update(
            sent_at=now, expires_at=now + timedelta(days=INVITATION_DAYS), sends=F("sends") + 1
        )
        return len(sent)
