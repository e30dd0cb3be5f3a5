"""A student's courses, a course's assignments, and an assignment with their standing in it.

Whoever is not a member of a course gets a 404 for it and everything in it, as if it did not
exist; a student gets a 404 for an assignment before its release too.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from webapp.accounts.requests import SignedInRequest
from webapp.courses.models import Course


def member_course(request: SignedInRequest, slug: str) -> Course:
    course = get_object_or_404(Course, slug=slug)
    if course.membership_of(request.user) is None:
        raise Http404("No such course.")
    return course


@login_required
def course_list(request: SignedInRequest) -> HttpResponse:
    return render(request, "courses/course_list.html", {"courses": Course.of(request.user)})


@login_required
def course_detail(request: SignedInRequest, slug: str) -> HttpResponse:
    course = member_course(request, slug)
    assignments = course.visible_assignments(request.user, timezone.now())
    rows = [(a, a.due_for(request.user)) for a in assignments]
    return render(request, "courses/course_detail.html", {"course": course, "rows": rows})


@login_required
def assignment_detail(request: SignedInRequest, slug: str, assignment: str) -> HttpResponse:
    course = member_course(request, slug)
    found = get_object_or_404(course.visible_assignments(request.user, timezone.now()), slug=assignment)
    scores = found.problem_scores(request.user)
    context = {
        "course": course,
        "assignment": found,
        "due_at": found.due_for(request.user),
        "scores": scores,
        "earned": sum(score.earned for score in scores),
        "total": found.total_points,
    }
    return render(request, "courses/assignment_detail.html", context)
