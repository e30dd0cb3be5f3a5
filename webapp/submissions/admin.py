from __future__ import annotations

import io
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from webapp.read_only_admin import ReadOnlyAdmin
from webapp.submissions.models import Draft, GradebookStudent, Progress, Submission, Worker, gradebook
from webapp.submissions.models.gradebook import write_gradebook_csv


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin[Submission]):
    """Submissions as a record: staff read them and regrade them, and never edit a result.

    A verdict or a score typed in by hand would disagree with the report it came from (and
    with the gradebook, which is recomputed from submissions); the only way to change a result
    is to grade the code again.
    """

    list_display = ("id", "problem", "user", "kind", "origin", "status", "verdict", "score", "attempt", "created_at")
    list_filter = ("status", "kind", "origin", "verdict", "problem")
    search_fields = ("user__username", "problem__slug")
    actions = ("regrade",)
    fieldsets = (
        (None, {"fields": ("user", "problem", "kind", "origin", "created_at")}),
        ("Result", {"fields": ("status", "verdict", "score_shown", "summary", "test_results")}),
        ("Code", {"fields": ("code_shown", "notebook_shown")}),
        (
            "Grading",
            {
                "classes": ("collapse",),
                "fields": (
                    *("attempt", "interruptions", "task_id", "worker"),
                    *("heartbeat_at", "started_at", "finished_at"),
                ),
            },
        ),
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # submissions come from students and from autograded notebooks

    def get_readonly_fields(self, request: HttpRequest, obj: Submission | None = None) -> list[str]:
        return [str(field) for _, options in self.fieldsets for field in options["fields"]]

    @admin.display(description="score")
    def score_shown(self, submission: Submission) -> str:
        if submission.score is None:
            return "-"
        return f"{submission.score:g} / {submission.max_score:g}" if submission.max_score else f"{submission.score:g}"

    @admin.display(description="message")
    def summary(self, submission: Submission) -> str:
        return (submission.report or {}).get("message") or "-"

    @admin.display(description="tests")
    def test_results(self, submission: Submission) -> str:
        """The report's tests as a table: what passed, what failed and the message the student saw."""
        tests = (submission.report or {}).get("tests") or []
        if not tests:
            return "-"
        rows = format_html_join(
            "",
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td>"
            '<td><pre style="white-space: pre-wrap; margin: 0">{}</pre></td></tr>',
            (
                (
                    test.get("name", ""),
                    "hidden" if test.get("hidden") else "visible",
                    test.get("outcome", ""),
                    f"{test.get('points', 0):g}" if isinstance(test.get("points"), int | float) else "",
                    test.get("message", ""),
                )
                for test in tests
            ),
        )
        return format_html(
            "<table><thead><tr><th>test</th><th>kind</th><th>outcome</th><th>points</th><th>message</th></tr>"
            "</thead><tbody>{}</tbody></table>",
            rows,
        )

    @admin.display(description="code")
    def code_shown(self, submission: Submission) -> str:
        return format_html('<pre style="white-space: pre-wrap; margin: 0">{}</pre>', submission.code)

    @admin.display(description="notebook")
    def notebook_shown(self, submission: Submission) -> str:
        if not submission.notebook:
            return "-"
        return f"the handed-in notebook, {len(submission.notebook.encode())} bytes (graded from its code above)"

    @admin.action(description="Grade the selected submissions again", permissions=["change"])
    def regrade(self, request: HttpRequest, queryset: QuerySet[Submission]) -> HttpResponse:
        """Queue each selected submission for a new grading, then show them with their status."""
        ids = Submission.regrade(queryset)
        self.message_user(
            request,
            f"Queued {len(ids)} submission(s) to be graded again. Their status below goes from "
            "queued to running to graded; reload the page to follow it.",
            messages.SUCCESS,
        )
        changelist = reverse("admin:submissions_submission_changelist")
        return HttpResponseRedirect(f"{changelist}?id__in={','.join(map(str, ids))}")


@admin.register(Progress)
class ProgressAdmin(ReadOnlyAdmin[Progress]):
    """Each student's standing on a problem, recomputed from their submissions: read only."""

    list_display = ("user", "problem", "attempted_at", "solved_at", "solution_viewed_at")
    list_filter = ("problem",)


@admin.register(Draft)
class DraftAdmin(admin.ModelAdmin[Draft]):
    list_display = ("user", "problem", "updated_at")


@admin.register(GradebookStudent)
class GradebookAdmin(ReadOnlyAdmin[GradebookStudent]):
    """The gradebook: students × problems, the best Submit score in each cell; ``?format=csv`` downloads it."""

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
