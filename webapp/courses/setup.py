"""A course set up on the site by its instructors, who never need the admin: the course
itself, its assignments and their problems, a student's extension or override from their row
of the gradebook, and a regrade confirmed with the number of Submits it queues.

Who reaches what is the access table's (``webapp/courses/access.py``): creating a course is
for the accounts the site lets create them (``webapp.courses.instructors``); the rest is for
the course's instructors (a 403 for its TAs and students, a 404 for the others), but for the
regrade's confirmation, which its TAs reach too. Signing in leads an instructor without a course
to the courses page, which offers to create the first.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import LoginView
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from webapp.accounts.clock import moment
from webapp.accounts.requests import SignedInRequest
from webapp.courses import access
from webapp.courses.forms import AssignmentForm, CourseForm, ExtensionForm, OverrideForm, points_text
from webapp.courses.models import Assignment, Course, Membership, Override, Regrade
from webapp.courses.views import course_for_its_instructors, course_for_its_staff, regrade_target


def sent(request: SignedInRequest) -> Any:
    """The form's data when it was sent, else None (an empty form to fill in)."""
    return request.POST if request.method == "POST" else None


def form_page(request: SignedInRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    """A form's page: a 400 when it was sent and refused, so that nothing reads it as done."""
    status = 400 if context["form"].errors else 200
    return render(request, template, context, status=status)


# -- the course ---------------------------------------------------------------------------------


@login_required
def course_create(request: SignedInRequest) -> HttpResponse:
    if not access.may_create_courses(request.user):
        raise PermissionDenied("Only the accounts the site lets create courses create them.")
    form = CourseForm(sent(request))
    if form.is_valid():
        course = form.save(commit=False)
        course.save_created_by(request.user)
        messages.success(request, f"{course.title} is created and you are its instructor: add its first assignment.")
        return redirect("courses:detail", course.slug)
    return form_page(request, "courses/course_form.html", {"form": form, "course": None})


@login_required
def course_edit(request: SignedInRequest, slug: str) -> HttpResponse:
    course = course_for_its_instructors(request, slug)
    shown = Course.objects.get(pk=course.pk)  # the form changes its instance while it checks it
    form = CourseForm(sent(request), instance=course)
    if form.is_valid():
        course = form.save()
        messages.success(request, f"{course.title} is saved.")
        return redirect("courses:detail", course.slug)
    return form_page(request, "courses/course_form.html", {"form": form, "course": shown})


# -- its assignments ----------------------------------------------------------------------------


@login_required
def assignment_create(request: SignedInRequest, slug: str) -> HttpResponse:
    course = course_for_its_instructors(request, slug)
    return assignment_page(request, course, AssignmentForm(sent(request), course=course), None)


@login_required
def assignment_edit(request: SignedInRequest, slug: str, assignment: str) -> HttpResponse:
    course = course_for_its_instructors(request, slug)
    found = get_object_or_404(course.assignments, slug=assignment)
    shown = Assignment.objects.get(pk=found.pk)  # as saved, whatever the form was sent
    return assignment_page(request, course, AssignmentForm(sent(request), course=course, instance=found), shown)


def assignment_page(
    request: SignedInRequest, course: Course, form: AssignmentForm, shown: Assignment | None
) -> HttpResponse:
    if form.is_valid():
        try:
            saved = form.save_with_problems()
        except ValidationError as refused:  # an override made since the form was checked
            form.add_error("problems", refused)
        else:
            count = len(form.chosen)
            messages.success(request, f"{saved.title} is saved, with {count} problem{'s' * (count != 1)}.")
            return redirect("courses:detail", course.slug)
    context = {
        "course": course,
        "assignment": shown,
        "form": form,
        "picker": form.picker(),
        # The picker's filters: every tag, and the difficulties from easy to hard (the catalog's order).
        "tags": sorted({tag for problem in form.catalog for tag in problem.tags}),
        "difficulties": list(dict.fromkeys(problem.difficulty for problem in form.catalog)),
    }
    return form_page(request, "courses/assignment_form.html", context)


# -- a student's extension and override, from their row of the gradebook ------------------------


def student_of(course: Course, username: str) -> Membership:
    """The course's student ``username`` (a 404 for anyone else: a colleague has no extension)."""
    member = course.memberships.filter(role=Membership.Role.STUDENT, user__username=username).select_related("user")
    found = member.first()
    if found is None:
        raise Http404("No such student in this course.")
    return found


def assignment_shown(request: SignedInRequest, course: Course) -> Assignment | None:
    """The assignment the gradebook was showing (``?assignment=``), else the first the form lists."""
    return course.assignments.filter(slug=request.GET.get("assignment", "")).first() or course.assignments.first()


def back_to_gradebook(course: Course, assignment: Assignment) -> str:
    """The gradebook, with the assignment just changed shown problem by problem."""
    return reverse("courses:gradebook", args=(course.slug,)) + f"?assignment={assignment.slug}"


@login_required
def extension(request: SignedInRequest, slug: str, username: str) -> HttpResponse:
    course = course_for_its_instructors(request, slug)
    member = student_of(course, username)
    student: User = member.user
    initial: dict[str, Any] = {}
    # The due time (or the student's extension of it) is where a new one starts from.
    chosen = assignment_shown(request, course)
    if chosen is not None:
        initial["assignment"] = chosen
        current = chosen.extensions.filter(user=student).first()
        initial["due_at"] = current.due_at if current is not None else chosen.due_at
    form = ExtensionForm(sent(request), initial=initial, course=course, student=student, by=request.user)
    if form.is_valid():
        granted = form.save()
        messages.success(
            request,
            f"{username}'s due time for {granted.assignment.title} is now {moment(granted.due_at)} (an extension).",
        )
        return redirect(back_to_gradebook(course, granted.assignment))
    context = {
        "course": course,
        "member": member,
        "form": form,
        "assignments": course.assignments.all(),
        "extensions": student.extensions.filter(assignment__course=course).select_related("assignment", "granted_by"),
    }
    return form_page(request, "courses/extension_form.html", context)


@login_required
def override(request: SignedInRequest, slug: str, username: str) -> HttpResponse:
    course = course_for_its_instructors(request, slug)
    member = student_of(course, username)
    student: User = member.user
    initial: dict[str, Any] = {}
    chosen = assignment_shown(request, course)
    if chosen is not None:
        initial["item"] = chosen.items.first()
    form = OverrideForm(sent(request), initial=initial, course=course, student=student, by=request.user)
    if form.is_valid():
        made = form.save()
        item = made.item
        messages.success(
            request,
            f"{username}: {points_text(made.points)} points on {item.problem.slug} in {item.assignment.title}, "
            "set by hand.",
        )
        return redirect(back_to_gradebook(course, item.assignment))
    overrides = Override.objects.filter(user=student, item__assignment__course=course).select_related(
        "item__problem", "item__assignment", "created_by"
    )
    context = {"course": course, "member": member, "form": form, "overrides": overrides}
    return form_page(request, "courses/override_form.html", context)


# -- a regrade, confirmed -----------------------------------------------------------------------


@login_required
@require_GET
def regrade_confirm(request: SignedInRequest, slug: str) -> HttpResponse:
    """What the gradebook's regrade would do: how many Submits it queues (counted as
    ``Regrade.start`` will choose them), and a button that asks for it."""
    course = course_for_its_staff(request, slug)
    assignment, problem, submission = regrade_target(course, request.GET)
    queued, scope = Regrade.covered(assignment, problem=problem, submission=submission)
    context = {
        "course": course,
        "scope": scope,
        "count": queued.count(),
        "target": request.GET.get("target", ""),
        "submission": submission,
    }
    return render(request, "courses/regrade_confirm.html", context)


# -- signing in ---------------------------------------------------------------------------------


class SignIn(LoginView):
    """Signing in, as Django's, but an account that may create courses and is in none lands on
    the courses page, which offers to create its first (a ``next`` page still wins)."""

    def get_default_redirect_url(self) -> str:
        user = self.request.user
        if access.may_create_courses(user) and isinstance(user, User) and not Course.of(user).exists():
            return reverse("courses:list")
        return super().get_default_redirect_url()
