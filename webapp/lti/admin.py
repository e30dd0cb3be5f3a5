from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from webapp.lti.models import AssignmentLink, CourseLink, PlatformAccount, PlatformPolicy, ScorePublication
from webapp.read_only_admin import ReadOnlyAdmin


@admin.register(PlatformPolicy)
class PlatformPolicyAdmin(admin.ModelAdmin[PlatformPolicy]):
    """What a registered platform is allowed beyond LTI itself: the hosts its services may be on,
    and whether its instructors create courses on the site."""

    list_display = ("registration", "instructors_may_create_courses")
    raw_id_fields = ("registration",)


@admin.register(PlatformAccount)
class PlatformAccountAdmin(ReadOnlyAdmin[PlatformAccount]):
    """The accounts launches made, by deployment and ``sub``: read only (an account is never
    handed to another person, nor another account to a platform's person)."""

    list_display = ("user", "sub", "deployment", "gave_staff", "gave_creation", "created_at")
    search_fields = ("user__username", "sub")
    readonly_fields = ("deployment", "sub", "user", "gave_staff", "gave_creation", "created_at")


@admin.register(CourseLink)
class CourseLinkAdmin(admin.ModelAdmin[CourseLink]):
    """Link a platform's course to an existing course here (an instructor's first launch makes a new one)."""

    list_display = ("context", "course", "created_at", "roster_synced_at")
    raw_id_fields = ("context",)
    readonly_fields = ("roster_sync_queued_at", "roster_synced_at")


@admin.register(AssignmentLink)
class AssignmentLinkAdmin(admin.ModelAdmin[AssignmentLink]):
    list_display = ("resource_link", "assignment", "line_item_url", "can_publish_scores")
    raw_id_fields = ("resource_link",)


@admin.register(ScorePublication)
class ScorePublicationAdmin(admin.ModelAdmin[ScorePublication]):
    """What was last sent to each line item for each student, and why a send failed: a record,
    never changed or deleted here."""

    list_display = (
        "platform_user",
        "assignment_title",
        "score_given",
        "score_maximum",
        "status",
        "tries",
        "updated_at",
    )
    list_filter = ("status",)
    readonly_fields = (
        "assignment_link",
        "platform_account",
        "line_item_url",
        "assignment_title",
        "platform_user",
        "score_given",
        "score_maximum",
        "status",
        "tries",
        "error",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
