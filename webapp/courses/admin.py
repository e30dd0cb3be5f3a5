"""Courses in the admin. The site's superusers see every course; an instructor (an account the
site lets into the admin, ``User.is_staff``, in the instructors' group:
``webapp/courses/instructors.py``) sees and changes only the courses they teach, and their
assignments, extensions, overrides and regrades; whoever creates a course becomes its
instructor."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from django.contrib import admin
from django.contrib.auth.models import User
from django.db.models import ForeignKey, Model, QuerySet
from django.forms import ModelChoiceField
from django.http import HttpRequest
from django.utils import timezone

from webapp.courses.models import (
    Assignment,
    AssignmentProblem,
    Course,
    Extension,
    Invitation,
    Membership,
    Override,
    Regrade,
    RosterUpload,
)


def signed_in(request: HttpRequest) -> User:
    assert isinstance(request.user, User), "the admin is for signed-in staff"
    return request.user


M = TypeVar("M", bound=Model)
# A filter's choices are those of the rows the instructor sees, never every course on the site.
RelatedOnly = admin.RelatedOnlyFieldListFilter


class InstructedOnly(admin.ModelAdmin[M], Generic[M]):
    """Rows of the courses the signed-in instructor teaches, found by ``course_path``; a course,
    assignment or student to choose, from those courses only."""

    course_path = "course"

    def get_queryset(self, request: HttpRequest) -> QuerySet[M]:
        courses = Course.instructed_by(signed_in(request))
        return super().get_queryset(request).filter(**{f"{self.course_path}__in": courses}).distinct()

    def formfield_for_foreignkey(self, db_field: ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any) -> Any:
        user = signed_in(request)
        courses = Course.instructed_by(user)
        if db_field.name == "course":
            kwargs["queryset"] = courses
        elif db_field.name == "assignment":
            kwargs["queryset"] = Assignment.objects.filter(course__in=courses)
        elif db_field.name == "item":
            kwargs["queryset"] = AssignmentProblem.objects.filter(assignment__course__in=courses).select_related(
                "problem", "assignment__course"
            )
        elif db_field.name == "user" and not user.is_superuser:
            # Students of their own courses only: an instructor never browses the site's accounts.
            kwargs["queryset"] = User.objects.filter(
                memberships__course__in=courses, memberships__role=Membership.Role.STUDENT
            ).distinct()
        field: ModelChoiceField[Any] | None = super().formfield_for_foreignkey(db_field, request, **kwargs)
        return field

    def get_autocomplete_fields(self, request: HttpRequest) -> tuple[str, ...]:
        # Finding any account by name is for the site's superusers.
        return tuple(super().get_autocomplete_fields(request)) if signed_in(request).is_superuser else ()


class KeptRecord(InstructedOnly[M], Generic[M]):
    """A record of who decided what: read here, never changed or deleted (its rows are kept
    whatever they point at; see the models)."""

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MadeElsewhere(KeptRecord[M], Generic[M]):
    """A record that the site's pages make (the gradebook, the roster page): a log to read here."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


class MembershipInline(admin.TabularInline[Membership, Course]):
    """Members are enrolled from the roster page (CSV, invite link); here their role and section
    change. The site's superusers may add anyone, instructors included."""

    model = Membership
    extra = 0
    autocomplete_fields = ("user",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return () if signed_in(request).is_superuser else ("user",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return signed_in(request).is_superuser


@admin.register(Course)
class CourseAdmin(InstructedOnly[Course]):
    course_path = "pk"
    list_display = ("title", "slug", "created_at")
    search_fields = ("title", "slug")
    prepopulated_fields = {"slug": ("title",)}  # noqa: RUF012 (Django reads it from the class)
    readonly_fields = ("invite_code",)
    inlines = (MembershipInline,)

    def save_model(self, request: HttpRequest, obj: Course, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
        else:  # its creator teaches it (and so sees it in the admin)
            obj.save_created_by(signed_in(request))


class AssignmentProblemInline(admin.TabularInline[AssignmentProblem, Assignment]):
    model = AssignmentProblem
    extra = 3
    fields = ("problem", "points", "position")


@admin.register(Assignment)
class AssignmentAdmin(InstructedOnly[Assignment]):
    list_display = ("title", "course", "release_at", "due_at", "late_policy")
    list_filter = (("course", RelatedOnly), "late_policy")
    search_fields = ("title", "slug", "course__title")
    prepopulated_fields = {"slug": ("title",)}  # noqa: RUF012 (Django reads it from the class)
    inlines = (AssignmentProblemInline,)


@admin.register(Extension)
class ExtensionAdmin(InstructedOnly[Extension]):
    course_path = "assignment__course"
    list_display = ("assignment", "user", "due_at", "granted_by", "granted_at")
    list_filter = (("assignment__course", RelatedOnly),)
    search_fields = ("user__username", "assignment__title")
    autocomplete_fields = ("user",)
    readonly_fields = ("granted_by", "granted_at")

    def save_model(self, request: HttpRequest, obj: Extension, form: Any, change: bool) -> None:
        if not change:
            obj.granted_by = signed_in(request)  # who granted it is recorded, never typed in
        super().save_model(request, obj, form, change)


@admin.register(Override)
class OverrideAdmin(KeptRecord[Override]):
    """Overrides are a log: made with a reason, never changed or deleted (a new one replaces it)."""

    course_path = "item__assignment__course"
    list_display = ("item", "user", "points", "reason", "created_by", "created_at")
    list_filter = (("item__assignment__course", RelatedOnly), ("item__assignment", RelatedOnly))
    search_fields = ("user__username", "reason")
    autocomplete_fields = ("user",)
    readonly_fields = ("created_by", "created_at")

    def save_model(self, request: HttpRequest, obj: Override, form: Any, change: bool) -> None:
        obj.created_by = signed_in(request)
        super().save_model(request, obj, form, change)


@admin.register(Regrade)
class RegradeAdmin(MadeElsewhere[Regrade]):
    """Regrades are asked for on the gradebook page; here they are a log to read."""

    list_display = ("scope", "course", "requested_by", "requested_at")
    list_filter = (("course", RelatedOnly),)


@admin.register(Invitation)
class InvitationAdmin(MadeElsewhere[Invitation]):
    """Invitations are made from the roster page; here they are read, and pending ones withdrawn
    (an address mistyped in a roster: its link stops working; upload the corrected line again)."""

    list_display = ("username", "email", "course", "section", "sent_at", "expires_at", "accepted_at", "accepted_by")
    list_filter = (("course", RelatedOnly),)
    search_fields = ("username", "email", "name")
    readonly_fields = tuple(field.name for field in Invitation._meta.fields if field.name != "id")
    actions = ("withdraw",)

    @admin.action(description="Withdraw the chosen pending invitations (their links stop working)")
    def withdraw(self, request: HttpRequest, queryset: QuerySet[Invitation]) -> None:
        now = timezone.now()
        withdrawn = queryset.filter(accepted_at__isnull=True, expires_at__gt=now).update(expires_at=now)
        self.message_user(request, f"Withdrew {withdrawn} invitation(s).")

    def get_actions(self, request: HttpRequest) -> Any:
        # Withdrawing is changing the course's roster: its instructors and the site's superusers.
        actions = super().get_actions(request)
        if not (signed_in(request).is_superuser or Course.instructed_by(signed_in(request)).exists()):
            actions.pop("withdraw", None)
        return actions


@admin.register(RosterUpload)
class RosterUploadAdmin(MadeElsewhere[RosterUpload]):
    """Roster uploads are made and resumed on the roster page; here they are a log to read."""

    list_display = ("course", "uploaded_by", "created_at", "status", "done", "total", "invited", "accounts_made")
    list_filter = (("course", RelatedOnly), "status")
    exclude = ("rows",)  # the roster's lines: names and addresses, read on the roster page
    readonly_fields = ("course", "uploaded_by", "created_at", "updated_at", "status", "done", "total", "error")
