from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.models import User
from django.http import HttpRequest

from webapp.courses.models import Assignment, AssignmentProblem, Course, Extension, Membership, Override, Regrade


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


@admin.register(Override)
class OverrideAdmin(admin.ModelAdmin[Override]):
    """Overrides are a log: made with a reason, never changed or deleted (a new one replaces it)."""

    list_display = ("item", "user", "points", "reason", "created_by", "created_at")
    list_filter = ("item__assignment__course", "item__assignment")
    search_fields = ("user__username", "reason")
    autocomplete_fields = ("user",)
    readonly_fields = ("created_by", "created_at")

    def has_change_permission(self, request: HttpRequest, obj: Override | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Override | None = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Override, form: Any, change: bool) -> None:
        if isinstance(request.user, User):
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(Regrade)
class RegradeAdmin(admin.ModelAdmin[Regrade]):
    """Regrades are asked for on the gradebook page; here they are a log to read."""

    list_display = ("scope", "course", "requested_by", "requested_at")
    list_filter = ("course",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Regrade | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Regrade | None = None) -> bool:
        return False
