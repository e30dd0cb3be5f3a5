"""A roster an instructor uploaded, invited in the background in short batches that a retried
or resumed run goes on from, never inviting a row twice nor emailing an invitation twice.

Its course keeps it and decides when one may start (``Course.upload_roster``); this module
names the course only by the string ``"Course"``, as the course's module builds on it.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, models, transaction
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils import timezone

from webapp.courses.models.invitation import (
    INVITATION_DAYS,
    RECORD_FIELDS,
    Invitation,
    token_digest,
    updated_record,
)
from webapp.courses.models.membership import Membership, RateLimited
from webapp.courses.roster import RosterRow
from webapp.courses.tasks import enrol_roster

ROSTER_UPLOADS_PER_WINDOW = 3  # per course
ROSTER_UPLOAD_WINDOW = timedelta(minutes=10)
ROSTER_BATCH = 100  # rows per transaction: each is a short write, so nobody else waits long
# An unfinished upload silent this long may be resumed: well above a batch's worst case (100
# emails through a slow relay, each up to its 10 s timeout), so a live run is never taken for a
# stalled one and run twice; and an upload no worker has taken for as long is resumed too.
UPLOAD_STALLED_AFTER = timedelta(minutes=30)


class RosterUpload(models.Model):
    """A roster file an instructor uploaded (or ``manage.py enrol`` read), invited in the
    background in batches of ``ROSTER_BATCH`` rows, each its own short transaction.

    The file is checked whole before this record is made (nothing of a bad file is kept).
    ``done`` counts the rows invited, batch by batch, moved by a conditional update: a run that
    is retried or resumed goes on from there and never invites a row twice, and an email is
    sent once per invitation (``Invitation.sent_at``)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"  # it stopped part way: retrying goes on from where it stopped

    UNFINISHED = (Status.QUEUED, Status.RUNNING)

    course = models.ForeignKey("Course", on_delete=models.CASCADE, related_name="roster_uploads")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(default=timezone.now)  # moved by every batch: a running one is alive
    site_url = models.CharField(max_length=200, blank=True)  # the links' address, as the uploader reached the site
    rows = models.JSONField(
        default=list
    )  # per row, RosterRow.stored(): [line, username, email, name, section, student id]
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    accounts_made = models.PositiveIntegerField(default=0)  # free usernames: made, to be activated
    invited = models.PositiveIntegerField(default=0)  # taken usernames: invited, nobody's account touched
    listed_before = models.PositiveIntegerField(default=0)  # invited already (their record follows the roster)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"roster of {self.total} for {self.course} ({self.status})"

    def is_stalled(self, now: datetime) -> bool:
        return self.status in self.UNFINISHED and self.updated_at < now - UPLOAD_STALLED_AFTER

    @property
    def may_resume(self) -> bool:
        return self.status == self.Status.FAILED or self.is_stalled(timezone.now())

    def resume(self) -> None:
        """Queue a failed (or stalled) upload again: it goes on from its last whole batch."""
        now = timezone.now()
        stalled = Q(status__in=self.UNFINISHED, updated_at__lt=now - UPLOAD_STALLED_AFTER)
        with transaction.atomic():
            moved = (
                RosterUpload.objects.filter(pk=self.pk)
                .filter(Q(status=self.Status.FAILED) | stalled)
                .update(status=self.Status.QUEUED, updated_at=now)
            )
            if not moved:
                raise RateLimited("This roster is not stopped: there is nothing to resume.")
            enrol_roster.enqueue(self.pk)

    def run(self) -> str:
        """Invite the rows from ``done`` on, batch by batch, then send what is unsent; on an
        error, stop as ``FAILED`` with the error kept (``resume`` goes on from there)."""
        claimed = RosterUpload.objects.filter(pk=self.pk, status=self.Status.QUEUED).update(
            status=self.Status.RUNNING, updated_at=timezone.now(), error=""
        )
        if not claimed:
            return "not queued"
        self.refresh_from_db()
        try:
            self.send_unsent()  # those a failed run kept but did not email
            while self.done < self.total:
                made = self.invite_batch(self.done)
                if made is None:
                    return "taken over by another run"
                if made:
                    Invitation.deliver([invitation for invitation, _ in made], self.site_url, [t for _, t in made])
                self.refresh_from_db()
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:1000]
            RosterUpload.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(
                status=self.Status.FAILED, error=error, updated_at=timezone.now()
            )
            raise
        RosterUpload.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(
            status=self.Status.DONE, updated_at=timezone.now()
        )
        return f"{self.total} rows: {self.accounts_made} accounts made, {self.invited} invited"

    def invite_batch(self, start: int) -> list[tuple[Invitation, str]] | None:
        """Invitations (and the accounts of free usernames) for the rows from ``start``, in one
        transaction that moves ``done`` on: the new invitations with their links' tokens, to be
        emailed; None if another run moved ``done`` first."""
        rows = self.rows[start : start + ROSTER_BATCH]
        with transaction.atomic():
            moved = RosterUpload.objects.filter(pk=self.pk, status=self.Status.RUNNING, done=start).update(
                done=start + len(rows), updated_at=timezone.now()
            )
            if not moved:
                return None
            fresh, before = self.invite_rows(rows)
            made = sum(invitation.account is not None for invitation, _ in fresh)
            RosterUpload.objects.filter(pk=self.pk).update(
                accounts_made=F("accounts_made") + made,
                invited=F("invited") + len(fresh) - made,
                listed_before=F("listed_before") + before,
            )
        return fresh

    def invite_rows(self, stored: list[list[Any]]) -> tuple[list[tuple[Invitation, str]], int]:
        """Invitations for ``stored`` rows not invited before (with accounts for the free
        usernames among them), and the count of those invited before: their invitations, and
        the memberships of those who accepted them, take this roster's record of the person."""
        rows = [RosterRow.from_stored(row) for row in stored]
        usernames = [row.username for row in rows]
        # Locked: an invitation accepted meanwhile reads its record once this batch's is whole.
        listed = Invitation.objects.select_for_update().filter(course=self.course_id, username__in=usernames)
        known = {invitation.username: invitation for invitation in listed}
        # Taken whatever the case: a self-made "Alice" keeps the roster from making "alice".
        taken = set(
            User.objects.annotate(lower=Lower("username"))
            .filter(lower__in=[name.lower() for name in usernames])
            .values_list("lower", flat=True)
        )
        now = timezone.now()
        fresh: list[tuple[Invitation, str]] = []
        accounts = self.make_accounts(
            [row for row in rows if row.username not in known and row.username.lower() not in taken]
        )
        for row in rows:
            if row.username in known:
                continue
            token = secrets.token_urlsafe(32)
            invitation = Invitation(
                course=self.course,
                upload=self,
                username=row.username,
                email=row.email,
                name=row.name,
                student_id=row.student_id,
                section=row.section,
                account=accounts.get(row.username),
                token_digest=token_digest(token),
                invited_by_id=self.uploaded_by_id,
                expires_at=now + timedelta(days=INVITATION_DAYS),
            )
            fresh.append((invitation, token))
        Invitation.objects.bulk_create([invitation for invitation, _ in fresh])
        self.update_records([(known[row.username], row) for row in rows if row.username in known])
        return fresh, len(rows) - len(fresh)

    def update_records(self, listed: list[tuple[Invitation, RosterRow]]) -> None:
        """The newer roster's record of people invited before: on their invitations (a pending
        one's "Send again" goes to the newer email) and on the memberships of the students who
        accepted them. Two writes for the batch, whatever its size."""
        newer_of = {invitation.pk: row.record() for invitation, row in listed}
        invitations = [invitation for invitation, _ in listed if updated_record(invitation, newer_of[invitation.pk])]
        Invitation.objects.bulk_update(invitations, RECORD_FIELDS)
        accepted = {invitation.accepted_by_id: invitation.pk for invitation, _ in listed if invitation.accepted_by_id}
        students = Membership.objects.filter(
            course=self.course_id, user__in=list(accepted), role=Membership.Role.STUDENT
        )
        members = [member for member in students if updated_record(member, newer_of[accepted[member.user_id]])]
        Membership.objects.bulk_update(members, RECORD_FIELDS)

    @staticmethod
    def make_accounts(rows: list[RosterRow]) -> dict[str, User]:
        """Accounts without a password for the rows' free usernames, by username. One insert
        for them all; if someone took one of the names meanwhile, one by one, and that name is
        theirs (its line an invitation like any other)."""
        users = []
        for row in rows:
            first, _, last = row.name.partition(" ")
            user = User(username=row.username, email=row.email, first_name=first[:150], last_name=last[:150])
            user.set_unusable_password()
            users.append(user)
        try:
            with transaction.atomic():  # a savepoint: the batch goes on without the taken name
                User.objects.bulk_create(users)
        except IntegrityError:
            made = []
            for user in users:
                try:
                    with transaction.atomic():
                        user.save()
                except IntegrityError:
                    continue
                made.append(user)
            users = made
        # bulk_create sets the ids on PostgreSQL and SQLite; read them back where it did not.
        if any(user.pk is None for user in users):
            users = list(User.objects.filter(username__in=[user.username for user in users]))
        return {user.username: user for user in users}

    def send_unsent(self) -> int:
        """Email this upload's invitations whose email is still to be sent."""
        sent = 0
        while True:
            unsent = self.invitations.filter(sent_at__isnull=True, accepted_at__isnull=True)
            batch = list(unsent.select_related("course", "account")[:ROSTER_BATCH])
            delivered = Invitation.deliver(batch, self.site_url) if batch else 0
            if not delivered:
                return sent
            sent += delivered
            RosterUpload.objects.filter(pk=self.pk).update(updated_at=timezone.now())
