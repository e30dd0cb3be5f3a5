from django.contrib import admin

from webapp.submissions.models import Draft, Progress, Submission


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin[Submission]):
    list_display = ("id", "problem", "user", "kind", "status", "verdict", "score", "attempt", "created_at")
    list_filter = ("status", "kind", "verdict", "problem")
    search_fields = ("user__username", "problem__slug")
    readonly_fields = ("report", "task_id", "worker", "heartbeat_at", "started_at", "finished_at", "attempt")


@admin.register(Progress)
class ProgressAdmin(admin.ModelAdmin[Progress]):
    list_display = ("user", "problem", "attempted_at", "solved_at", "solution_viewed_at")
    list_filter = ("problem",)


@admin.register(Draft)
class DraftAdmin(admin.ModelAdmin[Draft]):
    list_display = ("user", "problem", "updated_at")
