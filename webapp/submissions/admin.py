from __future__ import annotations

import io
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from webapp.submissions.gradebook import write_gradebook_csv
from webapp.submissions.models import Draft, GradebookStudent, Progress, Submission, Worker, gradebook


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin[Submission]):
    list_display = ("id", "problem", "user", "kind", "origin", "status", "verdict", "score", "attempt", "created_at")
    list_filter = ("status", "kind", "origin", "verdict", "problem")
    search_fields = ("user__username", "problem__slug")
    readonly_fields = (
        "report",
        "notebook",
        "task_id",
        "worker",
        "heartbeat_at",
        "started_at",
        "finished_at",
        "attempt",
        "interruptions",
    )


@admin.register(Progress)
class ProgressAdmin(admin.ModelAdmin[Progress]):
    list_display = ("user", "problem", "attempted_at", "solved_at", "solution_viewed_at")
    list_filter = ("problem",)


@admin.register(Draft)
class DraftAdmin(admin.ModelAdmin[Draft]):
    list_display = ("user", "problem", "updated_at")


@admin.register(GradebookStudent)
class GradebookAdmin(admin.ModelAdmin[GradebookStudent]):
    """The gradebook: students × problems, the best Submit score in each cell; ``?format=csv`` downloads it."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if not self.has_view_permission(request):
            return super().changelist_view(request, extra_context)  # Django's own refusal
        if request.GET.get("format") == "csv":
            buffer = io.StringIO()
            write_gradebook_csv(buffer)
            response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = 'attachment; filename="gradebook.csv"'
            return response
        problems, rows = gradebook()
        context = {
            **self.admin_site.each_context(request),
            "title": "Gradebook",
            "opts": self.model._meta,
            "problems": problems,
            "rows": [
                (student, list(zip(problems, scores, strict=True)), sum(s for s in scores if s is not None))
                for student, scores in rows
            ],
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/submissions/gradebook.html", context)


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin[Worker]):
    """The grading workers seen lately: alive while their heartbeat is fresh."""

    list_display = ("name", "queue", "started_at", "beat_at")
    list_filter = ("queue",)
    readonly_fields = ("name", "queue", "started_at", "beat_at")
