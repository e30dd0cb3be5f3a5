from django.contrib import admin

from webapp.lti.models import AssignmentLink, CourseLink, ScorePublication


@admin.register(CourseLink)
class CourseLinkAdmin(admin.ModelAdmin[CourseLink]):
    """Link a platform's course to an existing course here (an instructor's first launch makes a new one)."""

    list_display = ("context", "course", "created_at")
    raw_id_fields = ("context",)


@admin.register(AssignmentLink)
class AssignmentLinkAdmin(admin.ModelAdmin[AssignmentLink]):
    list_display = ("resource_link", "assignment", "line_item_url", "can_publish_scores")
    raw_id_fields = ("resource_link",)


@admin.register(ScorePublication)
class ScorePublicationAdmin(admin.ModelAdmin[ScorePublication]):
    """What was last sent to each line item for each student, and why a send failed."""

    list_display = ("lti_user", "assignment_link", "score_given", "score_maximum", "status", "tries", "updated_at")
    list_filter = ("status",)
    readonly_fields = ("assignment_link", "lti_user", "score_given", "score_maximum", "status", "tries", "error")
