"""What the site keeps of LTI beyond django-lti's records (``lti_tool``): the site's policy for
each registered platform, the accounts it made for a platform's people, which platform course
opens which course here, which resource link opens which assignment (and the platform's line
item its scores go to), what was last sent there, and the short-lived state of launches."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone

from webapp.courses.models import Assignment, Course, Membership

if TYPE_CHECKING:
    from lti_tool.models import LtiContext


class LaunchValue(models.Model):
    """One value of pylti1p3's launch state (an OIDC nonce, a validated launch), until it expires.

    Kept in the database rather than the cache: the cache is per process, and the login and
    the launch that follows it may reach different web processes."""

    key = models.CharField(max_length=255, unique=True)
    value = models.JSONField()
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.key


def host_key(url: str) -> str:
    """A URL's host as the policy compares it: the lowercased host name, with its port when it is
    not the scheme's default ("" for a URL with no host)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ""
    host = (parts.hostname or "").lower()
    if not host:
        return ""
    default = {"https": 443, "http": 80}.get(parts.scheme.lower())
    return host if port is None or port == default else f"{host}:{port}"


MAX_SERVICE_HOSTS = 50


class PlatformPolicy(models.Model):
    """What the site's administrator allows one registered platform, beyond what LTI itself says."""

    registration = models.OneToOneField("lti_tool.LtiRegistration", on_delete=models.CASCADE, related_name="policy")
    instructors_may_create_courses = models.BooleanField(
        default=False,
        help_text="An Instructor launch from this platform also lets the account create new courses on the "
        "site (off: they teach the course they launched from only).",
    )
    service_hosts = models.TextField(
        blank=True,
        help_text="Hosts, one a line (host or host:port), that serve this platform's rosters, gradebooks and "
        "deep-linking returns, besides the hosts of its issuer, auth, token and key set URLs (Canvas Cloud "
        "serves them from the school's own host, e.g. school.instructure.com).",
    )

    class Meta:
        verbose_name_plural = "platform policies"

    def __str__(self) -> str:
        return f"policy of {self.registration}"

    def listed_hosts(self) -> list[str]:
        hosts = [line.strip().lower() for line in self.service_hosts.splitlines() if line.strip()]
        return [host_key(f"https://{host}") or host for host in hosts]

    def clean(self) -> None:
        hosts = [line.strip() for line in self.service_hosts.splitlines() if line.strip()]
        if len(hosts) > MAX_SERVICE_HOSTS:
            raise ValidationError({"service_hosts": f"At most {MAX_SERVICE_HOSTS} hosts."})
        for host in hosts:
            if not host_key(f"https://{host}") or "/" in host or "@" in host:
                raise ValidationError({"service_hosts": f"{host!r} is not a host name (with an optional :port)."})


class PlatformAccount(models.Model):
    """The account this site made for one person (``sub``) of one deployment of a registration.

    Accounts are keyed on issuer, client id and deployment (one ``LtiDeployment``) and the
    ``sub``: the same issuer and ``sub`` through another registration or deployment (another
    school on Canvas Cloud) is another person. The account is always one a launch made, so a
    launch never renames or promotes an account someone else owns. What a launch gave of the
    admin (``gave_staff``, ``gave_creation``) is noted, so that a later launch takes back that
    and only that."""

    deployment = models.ForeignKey("lti_tool.LtiDeployment", on_delete=models.CASCADE, related_name="accounts")
    sub = models.CharField(max_length=255)
    # One account a key, made by a launch; an account from before accounts were keyed on the
    # deployment may stand for several deployments of its registration (migration 0006).
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="platform_accounts")
    # The platform's courses this person arrived through (a launch, or a Names and Roles
    # roster): the only ones that learn their points (``AssignmentLink.for_student``).
    contexts: models.ManyToManyField[LtiContext, Any] = models.ManyToManyField(
        "lti_tool.LtiContext", blank=True, related_name="platform_accounts"
    )
    gave_staff = models.BooleanField(default=False)
    gave_creation = models.BooleanField(default=False)
    # Launches of this account in the current minute (``launch_window_at``): a rate limit.
    launch_window_at = models.DateTimeField(null=True, blank=True)
    launches_in_window = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=("deployment", "sub"), name="one_account_per_deployment_sub"),
            models.UniqueConstraint(fields=("deployment", "user"), name="one_key_per_deployment_account"),
        )

    def __str__(self) -> str:
        return f"{self.sub} of {self.deployment}"


class CourseLink(models.Model):
    """A platform's course (an LTI context of one deployment) and the course it opens here."""

    context = models.OneToOneField("lti_tool.LtiContext", on_delete=models.CASCADE, related_name="course_link")
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="lti_links")
    created_at = models.DateTimeField(auto_now_add=True)
    # One roster sync at a time, and not too often: set when one is queued (cleared when it
    # ends), and when the last one ended (see ``webapp/lti/people.py``).
    roster_sync_queued_at = models.DateTimeField(null=True, blank=True)
    roster_synced_at = models.DateTimeField(null=True, blank=True)

    ROSTER_SYNC_EVERY = timedelta(minutes=5)  # at most one sync this often
    # A sync queued this long ago that never ended (its worker died) no longer holds the next one.
    ROSTER_SYNC_ABANDONED_AFTER = timedelta(hours=1)

    def __str__(self) -> str:
        return f"{self.context} → {self.course}"

    def claim_roster_sync(self) -> bool:
        """Whether a roster sync may be queued now, noting that it is: none is queued or running
        and the last ended ROSTER_SYNC_EVERY ago or more. Of two launches at once, one wins."""
        now = timezone.now()
        claimed = (
            type(self)
            .objects.filter(pk=self.pk)
            .filter(
                Q(roster_sync_queued_at=None) | Q(roster_sync_queued_at__lte=now - self.ROSTER_SYNC_ABANDONED_AFTER)
            )
            .filter(Q(roster_synced_at=None) | Q(roster_synced_at__lte=now - self.ROSTER_SYNC_EVERY))
            .update(roster_sync_queued_at=now)
        )
        return claimed == 1

    def roster_sync_ended(self) -> None:
        type(self).objects.filter(pk=self.pk).update(roster_sync_queued_at=None, roster_synced_at=timezone.now())


class AssignmentLink(models.Model):
    """A platform's resource link that opens an assignment, and the line item (a gradebook
    column on the platform) where the students' points on it are sent."""

    resource_link = models.OneToOneField(
        "lti_tool.LtiResourceLink", on_delete=models.CASCADE, related_name="assignment_link"
    )
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="lti_links")
    line_item_url = models.URLField(max_length=1000, blank=True)
    can_publish_scores = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.resource_link} → {self.assignment}"

    @classmethod
    def for_student(cls, user_id: int) -> models.QuerySet[AssignmentLink]:
        """The links a student's points may be sent through: those of assignments of courses
        they are a student of, in a platform course they came from themselves (a launch or its
        roster): a platform learns only about members of the linked course, under the ``sub``
        it gave them, never about someone who joined the same course here some other way."""
        return cls.objects.filter(
            assignment__course__memberships__user_id=user_id,
            assignment__course__memberships__role=Membership.Role.STUDENT,
            resource_link__context__platform_accounts__user_id=user_id,
        ).distinct()


class ScorePublication(models.Model):
    """The latest score sent (or being sent) for one student to one line item, and how it went.

    A record of what was sent to a platform: it outlives the link, the account and the
    assignment it points at (their columns go empty, and the text columns keep what they were)."""

    class Status(models.TextChoices):
        SENT = "sent"
        RETRYING = "retrying"  # failed; another try is queued
        FAILED = "failed"  # failed and out of tries

    assignment_link = models.ForeignKey(
        AssignmentLink, on_delete=models.SET_NULL, null=True, blank=True, related_name="publications"
    )
    platform_account = models.ForeignKey(
        PlatformAccount, on_delete=models.SET_NULL, null=True, blank=True, related_name="score_publications"
    )
    # What the rows above were, kept when they are gone.
    line_item_url = models.CharField(max_length=1000, blank=True)
    assignment_title = models.CharField(max_length=300, blank=True)
    platform_user = models.CharField(max_length=600, blank=True)  # sub, issuer, client id, deployment
    score_given = models.FloatField()
    score_maximum = models.FloatField()
    status = models.CharField(max_length=10, choices=Status.choices)
    tries = models.PositiveSmallIntegerField(default=0)
    error = models.CharField(max_length=500, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(
                fields=("assignment_link", "platform_account"), name="one_publication_per_line_item_account"
            ),
        )

    def __str__(self) -> str:
        return f"{self.score_given}/{self.score_maximum} for {self.platform_user} ({self.status})"
