"""What the site keeps of LTI beyond django-lti's records (``lti_tool``): which platform course
opens which course here, which resource link opens which assignment (and the platform's line
item its scores go to), what was last sent there, and the short-lived state of launches."""

from __future__ import annotations

from django.db import models

from webapp.courses.models import Assignment, Course


class LaunchValue(models.Model):
    """One value of pylti1p3's launch state (an OIDC nonce, a validated launch), until it expires.

    Kept in the database rather than the cache: the cache is per process, and the login and
    the launch that follows it may reach different web processes."""

    key = models.CharField(max_length=255, unique=True)
    value = models.JSONField()
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.key


class CourseLink(models.Model):
    """A platform's course (an LTI context of one deployment) and the course it opens here."""

    context = models.OneToOneField("lti_tool.LtiContext", on_delete=models.CASCADE, related_name="course_link")
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="lti_links")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.context} → {self.course}"


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


class ScorePublication(models.Model):
    """The latest score sent (or being sent) for one student to one line item, and how it went."""

    class Status(models.TextChoices):
        SENT = "sent"
        RETRYING = "retrying"  # failed; another try is queued
        FAILED = "failed"  # failed and out of tries

    assignment_link = models.ForeignKey(AssignmentLink, on_delete=models.CASCADE, related_name="publications")
    lti_user = models.ForeignKey("lti_tool.LtiUser", on_delete=models.CASCADE, related_name="score_publications")
    score_given = models.FloatField()
    score_maximum = models.FloatField()
    status = models.CharField(max_length=10, choices=Status.choices)
    tries = models.PositiveSmallIntegerField(default=0)
    error = models.CharField(max_length=500, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=("assignment_link", "lti_user"), name="one_publication_per_line_item_user"),
        )

    def __str__(self) -> str:
        return f"{self.score_given}/{self.score_maximum} for {self.lti_user} ({self.status})"
