from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.models import User
from django.http import HttpRequest

from webapp.courses.models import Assignment, AssignmentProblem, Course, Extension, Membership


class MembershipInline(admin.TabularInline[Membership, Course]):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin[Course]):
    list_display = ("title", "slug", "created_at")
    search_fields = ("title", "slug")
    prepopulated_fields = {"slug": ("title",)}  # noqa: RUF012 (Django reads it from the class)
    inlines = (MembershipInline,)


class AssignmentProblemInline(admin.TabularInline[AssignmentProblem, Assignment]):
    model = AssignmentProblem
    extra = 0
    autocomplete_fields = ("problem",)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin[Assignment]):
    list_display = ("title", "course", "release_at", "due_at", "late_policy")
    list_filter = ("course", "late_policy")
    search_fields = ("title", "slug", "course__title")
    prepopulated_fields = {"slug": ("title",)}  # noqa: RUF012 (Django reads it from the class)
    inlines = (AssignmentProblemInline,)


@admin.register(Extension)
class ExtensionAdmin(admin.ModelAdmin[Extension]):
    list_display = ("assignment", "user", "due_at", "granted_by", "granted_at")
    list_filter = ("assignment__course",)
    search_fields = ("user__username", "assignment__title")
    autocomplete_fields = ("user",)
    readonly_fields = ("granted_by", "granted_at")

    def save_model(self, request: HttpRequest, obj: Extension, form: Any, change: bool) -> None:
        if not change and isinstance(request.user, User):
            obj.granted_by = request.user  # who granted it is recorded, never typed in
        super().save_model(request, obj, form, change)
