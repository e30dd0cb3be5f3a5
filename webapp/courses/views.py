"""A student's courses, a course's assignments, and an assignment with their standing in it.

Whoever is not a member of a course gets a 404 for it and everything in it, as if it did not
exist; a student gets a 404 for an assignment before its release too.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import SetPasswordForm
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_POST

from webapp.accounts.models import Profile, time_zone_names
from webapp.accounts.requests import SignedInRequest
from webapp.catalog.models import Problem
from webapp.courses import access
from webapp.courses.gradebook import Gradebook
from webapp.courses.models import (
    Assignment,
    Course,
    Invitation,
    InvitationUnusable,
    Membership,
    ProblemScore,
    RateLimited,
    Regrade,
    RosterUpload,
)
from webapp.courses.roster import RosterError, read_uploaded_roster
from webapp.courses.statistics import AssignmentStatistics, current_assignment
from webapp.submissions.models import Submission


def course_for_its_members(request: SignedInRequest, slug: str) -> Course:
    course = get_object_or_404(Course, slug=slug)
    if not access.may_read_course(request.user, course):
        raise Http404("No such course.")
    return course


@login_required
def course_list(request: SignedInRequest) -> HttpResponse:
    # An account that may create courses is offered to (its first, when it is in none).
    context = {"courses": Course.of(request.user), "may_create": access.may_create_courses(request.user)}
    return render(request, "courses/course_list.html", context)


@login_required
def course_detail(request: SignedInRequest, slug: str) -> HttpResponse:
    course = course_for_its_members(request, slug)
    assignments = course.visible_assignments(request.user, timezone.now())
    rows = [(a, a.due_for(request.user)) for a in assignments]
    context = {
        "course": course,
        "rows": rows,
        "is_course_staff": course.is_course_staff(request.user),
        "is_instructor": course.is_instructor(request.user),
    }
    return render(request, "courses/course_detail.html", context)


@login_required
def assignment_detail(request: SignedInRequest, slug: str, assignment: str) -> HttpResponse:
    course = course_for_its_members(request, slug)
    found = get_object_or_404(course.visible_assignments(request.user, timezone.now()), slug=assignment)
    student = request.user
    if request.GET.get("student") and course.is_course_staff(request.user):  # course staff read a student's standing
        students = course.memberships.filter(role=Membership.Role.STUDENT)  # not a colleague's
        member = students.filter(user__username=request.GET["student"]).select_related("user").first()
        if member is None:
            raise Http404("No such student in this course.")
        student = member.user
    scores = found.problem_scores(student)
    context = {
        "course": course,
        "assignment": found,
        "student": student,
        "is_course_staff": course.is_course_staff(request.user),
        "due_at": found.due_for(student),
        "scores": scores,
        "earned": sum(score.earned for score in scores),
        "total": found.total_points,
    }
    return render(request, "courses/assignment_detail.html", context)


@login_required
def gradebook(request: SignedInRequest, slug: str) -> HttpResponse:
    """The course staff's view of the course: each student's points in each assignment, late and
    extension marks, a section filter and the same table as CSV."""
    course = course_for_its_staff(request, slug)
    section = request.GET.get("section", "")
    table = Gradebook.of_course(course, section=section, expand=request.GET.get("assignment", ""))
    if request.GET.get("format") == "csv":
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{course.slug}-gradebook.csv"'
        table.write_csv(response)
        return response
    # Each cell links to the student's standing: the URLs are built here, once per column,
    # since a template's {% url %} in each of 2,000 cells costs more than the table itself.
    column_urls = [reverse("courses:assignment", args=(course.slug, a.slug)) for a in table.assignments]
    submission_url = reverse("courses:submission", args=(course.slug, 0)).removesuffix("0/")
    rows = []
    for row in table.rows:
        student = quote(row.member.user.username)
        cells = [(cell, f"{url}?student={student}") for cell, url in zip(row.cells, column_urls, strict=True)]
        problems = problem_cells(row.problems, submission_url)
        rows.append((row, cells, problems))
    regrades = [(regrade, *regrade.ended_and_total()) for regrade in course.regrades.all()[:5]]
    context = {
        "course": course,
        "table": table,
        "columns": list(zip(table.assignments, column_urls, strict=True)),
        "rows": rows,
        "section": section,
        "sections": course.sections(),
        "regrades": regrades,
        # A student's extension and override, from their row: for the course's instructors.
        "is_instructor": course.is_instructor(request.user),
        "students_url": reverse("courses:extension", args=(course.slug, "-")).removesuffix("-/extension/"),
        # Problem names break after their underscores, so ten columns fit a 1400 px window.
        "problem_columns": [(item, item.problem.slug.replace("_", "_\u200b")) for item in table.items],
    }
    return render(request, "courses/gradebook.html", context)


def problem_cells(scores: list[ProblemScore], submission_url: str) -> SafeString:
    """A student's cells of the expanded assignment's problems, made here rather than in the
    template: with ten problems shown there are 2,000 of them. Each links to the hand-in that
    earned its points; a problem with none shows its points alone. Slugs are validated and
    URLs built from ``reverse``: only the slug could hold markup, and it is escaped all the same."""
    cells = []
    for score in scores:
        points = f"{score.earned:.0f}" if score.earned == int(score.earned) else f"{score.earned:.2f}"  # as floatformat
        if score.submission_id:
            points = f'<a href="{escape(submission_url)}{score.submission_id}/">{points}</a>'
        marks = ' <span class="late">late</span>' if score.credit is not None and score.credit.late else ""
        if score.override_reason:
            marks += ' <span class="overridden">override</span>'
        cells.append(f'<td class="problem-column" data-label="{escape(score.item.problem.slug)}">{points}{marks}</td>')
    return mark_safe("".join(cells))  # every part above is escaped or built here


def course_for_its_staff(request: SignedInRequest, slug: str) -> Course:
    """The course, for its instructors and TAs; a 403 for its students, a 404 for the others."""
    course = course_for_its_members(request, slug)
    if not access.is_course_staff(request.user, course):
        raise PermissionDenied("Only the course's staff see its gradebook and its students' work.")
    return course


@login_required
@require_POST
def regrade(request: SignedInRequest, slug: str) -> HttpResponse:
    """The course staff's regrade of an assignment (``target=ASSIGNMENT``), one of its problems
    (``target=ASSIGNMENT/PROBLEM``) or one hand-in (``submission=ID`` too): queued for the
    workers; the gradebook shows how far it has got. The gradebook's form asks first, on a
    page that says how many Submits it queues (``setup.regrade_confirm``)."""
    course = course_for_its_staff(request, slug)
    assignment, problem, submission = regrade_target(course, request.POST)
    with transaction.atomic():
        refused = Regrade.too_many(course)
        if not refused:
            started = Regrade.start(assignment, request.user, problem=problem, submission=submission)
    if refused:
        message = (
            f"This course has asked for {Regrade.MAX_PER_WINDOW} regrades in the last "
            f"{Regrade.WINDOW.seconds // 60} minutes: wait for them to finish, then ask again."
        )
        if "application/json" in request.headers.get("Accept", ""):
            return JsonResponse({"error": message}, status=429)
        back = {"back_url": reverse("courses:gradebook", args=(course.slug,)), "back_label": "Back to the gradebook"}
        return render(request, "courses/refused.html", {"course": course, "message": message, **back}, status=429)
    if "application/json" in request.headers.get("Accept", ""):
        ended, total = started.ended_and_total()
        return JsonResponse({"id": started.pk, "scope": started.scope, "ended": ended, "total": total}, status=202)
    queued = len(started.submission_ids)
    messages.success(request, f"Regrade of {started.scope}: {queued} Submit{'s' * (queued != 1)} queued.")
    return redirect(reverse("courses:gradebook", args=(course.slug,)) + "#regrades")


def regrade_target(course: Course, data: QueryDict) -> tuple[Assignment, Problem | None, Submission | None]:
    """What a regrade asks for (``target=ASSIGNMENT`` or ``ASSIGNMENT/PROBLEM``, and maybe
    ``submission=ID``), as the course's staff may ask it; anything else is a 404."""
    assignment_slug, _, problem_slug = data.get("target", "").partition("/")
    assignment = get_object_or_404(course.assignments, slug=assignment_slug)
    problem = get_object_or_404(assignment.problems, slug=problem_slug) if problem_slug else None
    submission = course_submission(course, data["submission"]) if data.get("submission") else None
    return assignment, problem, submission


@login_required
@require_GET
def regrade_progress(request: SignedInRequest, slug: str, pk: int) -> JsonResponse:
    """How many Submits of a regrade are graded again, for the gradebook to poll."""
    course = course_for_its_staff(request, slug)
    found = get_object_or_404(course.regrades, pk=pk)
    ended, total = found.ended_and_total()
    # done, total, finished and text: what the page's job_progress.js shows of any job.
    job = {"done": ended, "total": total, "finished": ended >= total, "text": f"{ended} of {total}"}
    return JsonResponse({"id": found.pk, "scope": found.scope, "ended": ended, **job})


def course_submission(course: Course, pk: Any) -> Submission:
    """A submission that staff of ``course`` may read (``Course.student_work``); anything else
    is a 404, as if it did not exist."""
    if not str(pk).isdigit() or len(str(pk)) > 18:
        raise Http404("No such submission.")
    found = access.course_may_read(course, int(pk))
    if found is None:
        raise Http404("No such submission.")
    return found


@login_required
@require_GET
def submission_detail(request: SignedInRequest, slug: str, pk: int) -> HttpResponse:
    """A student's submission as the course's staff read it (TAs included, who are not the site's
    staff): the result, what it printed under the visible tests, and its code. Never what it
    printed under the hidden tests: that would show the hidden inputs, which are the site's
    staff's alone (a course's staff could read them through their own second account)."""
    course = course_for_its_staff(request, slug)
    submission = course_submission(course, pk)
    assignments = course.assignments.filter(problems=submission.problem)
    context = {
        "submission": submission,
        "result": submission.to_json(),
        "course": course,
        "assignments": assignments,
    }
    return render(request, "courses/submission.html", context)


def course_for_its_instructors(request: SignedInRequest, slug: str) -> Course:
    """The course, for its instructors; a 403 for its other members, a 404 for the others."""
    course = course_for_its_members(request, slug)
    if not access.may_change_roster(request.user, course):
        raise PermissionDenied("Only the course's instructors change it: its assignments, roster and grades.")
    return course


PENDING_SHOWN = 200  # invitations listed on the page; a count says how many more


@login_required
def roster(request: SignedInRequest, slug: str) -> HttpResponse:
    """The instructor's roster: the members, the invitations still to be accepted, a CSV upload
    that invites students (in the background), and the invite link."""
    course = course_for_its_instructors(request, slug)
    context: dict[str, Any] = {"course": course}
    status = 200
    if request.method == "POST":
        try:
            rows = read_uploaded_roster(request.FILES.get("roster"))
            upload = course.upload_roster(rows, by=request.user, site_url=request.build_absolute_uri("/"))
            return redirect(reverse("courses:roster", args=(course.slug,)) + f"#upload-{upload.pk}")
        except RosterError as exc:
            context["errors"], status = exc.problems, 400
        except RateLimited as exc:
            context["errors"], status = [str(exc)], 429
    now = timezone.now()
    pending = course.invitations.filter(accepted_at__isnull=True).order_by("username")
    context["members"] = course.memberships.select_related("user").order_by("role", "section", "user__username")
    context["pending"] = [(i, i.state(now)) for i in pending[:PENDING_SHOWN]]
    context["pending_more"] = max(0, pending.count() - PENDING_SHOWN)
    context["uploads"] = course.roster_uploads.defer("rows")[:3]
    context["invite_url"] = request.build_absolute_uri(reverse("courses:join", args=(course.invite_code,)))
    return render(request, "courses/roster.html", context, status=status)


@login_required
@require_GET
def roster_upload(request: SignedInRequest, slug: str, pk: int) -> JsonResponse:
    """How far an uploaded roster has got, for the roster page to poll."""
    course = course_for_its_instructors(request, slug)
    upload = get_object_or_404(course.roster_uploads.defer("rows"), pk=pk)
    fields = ("status", "done", "total", "accounts_made", "invited", "listed_before", "error")
    # finished and text, with done and total: what the page's job_progress.js shows of any job.
    finished = upload.status not in RosterUpload.UNFINISHED
    job = {"finished": finished, "text": f"{upload.status}, {upload.done} of {upload.total} rows"}
    return JsonResponse({"id": upload.pk, **{name: getattr(upload, name) for name in fields}, **job})


@login_required
@require_POST
def roster_upload_resume(request: SignedInRequest, slug: str, pk: int) -> HttpResponse:
    """Queue a failed or stalled roster again, from where it stopped."""
    course = course_for_its_instructors(request, slug)
    upload = get_object_or_404(course.roster_uploads.defer("rows"), pk=pk)
    try:
        upload.resume()
    except RateLimited as exc:
        return render(request, "courses/refused.html", {"course": course, "message": str(exc)}, status=409)
    return redirect(reverse("courses:roster", args=(course.slug,)) + f"#upload-{upload.pk}")


@login_required
@require_POST
def member_role(request: SignedInRequest, slug: str, username: str) -> HttpResponse:
    """An instructor makes a student of the course a TA, or a TA a student (``role``)."""
    course = course_for_its_instructors(request, slug)
    member = get_object_or_404(course.memberships.select_related("user"), user__username=username)
    try:
        course.set_role(member, request.POST.get("role", ""), by=request.user)
    except ValueError as exc:
        back = {"back_url": reverse("courses:roster", args=(course.slug,)), "back_label": "Back to the roster"}
        return render(request, "courses/refused.html", {"course": course, "message": str(exc), **back}, status=400)
    messages.success(request, f"{username} is now a {member.get_role_display()} of the course.")
    return redirect(reverse("courses:roster", args=(course.slug,)) + "#members")


@login_required
@require_POST
def invitation_resend(request: SignedInRequest, slug: str, pk: int) -> HttpResponse:
    """Email an invitation again, with a new link (the old one stops working)."""
    course = course_for_its_instructors(request, slug)
    invitation = get_object_or_404(course.invitations.select_related("course", "account"), pk=pk)
    try:
        invitation.resend(request.build_absolute_uri("/"))
    except RateLimited as exc:
        return render(request, "courses/refused.html", {"course": course, "message": str(exc)}, status=429)
    except InvitationUnusable as exc:
        return render(request, "courses/refused.html", {"course": course, "message": str(exc)}, status=409)
    return redirect(reverse("courses:roster", args=(course.slug,)) + "#invitations")


def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """An emailed link. For an account the roster made: choose its password, be signed in and
    join. Otherwise: join with one's own account, signed in (after signing in or up)."""
    try:
        found = Invitation.find(token)
    except InvitationUnusable as exc:
        return render(request, "courses/invitation.html", {"unusable": str(exc)}, status=410)
    context: dict[str, Any] = {"invitation": found, "course": found.course}
    if found.activates and found.account is not None:
        form = SetPasswordForm(found.account, request.POST or None)
        context["form"] = form
        if request.method == "POST" and form.is_valid():
            try:
                user = found.activate(form)
            except (InvitationUnusable, RateLimited) as exc:
                return render(request, "courses/invitation.html", {"unusable": str(exc)}, status=410)
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            # The browser's zone, sent as at sign-up; one the site does not know leaves UTC,
            # which the account page changes.
            if request.POST.get("time_zone", "") in time_zone_names():
                Profile.set_time_zone(user, request.POST["time_zone"])
            return redirect("courses:detail", found.course.slug)
        return render(request, "courses/invitation.html", context, status=400 if form.errors else 200)
    if not request.user.is_authenticated:
        back = quote(request.get_full_path())
        context["login_url"] = f"{reverse('login')}?next={back}"
        context["signup_url"] = f"{reverse('signup')}?next={back}"
        return render(request, "courses/invitation.html", context)
    if request.method == "POST":
        try:
            found.accept(request.user)
        except InvitationUnusable as exc:
            return render(request, "courses/invitation.html", {"unusable": str(exc)}, status=410)
        except RateLimited as exc:
            context["refused"] = str(exc)
            return render(request, "courses/invitation.html", context, status=429)
        return redirect("courses:detail", found.course.slug)
    context["member"] = found.course.membership_of(request.user) is not None
    return render(request, "courses/invitation.html", context)


@login_required
def join(request: SignedInRequest, code: str) -> HttpResponse:
    """The invite link: a signed-in visitor confirms, and joins the course as a student (at
    most ``JOINS_PER_HOUR`` new courses an hour)."""
    course = get_object_or_404(Course, invite_code=code)
    member = course.membership_of(request.user) is not None
    if request.method == "POST":
        try:
            course.join(request.user)
        except RateLimited as exc:
            context = {"course": course, "member": member, "refused": str(exc)}
            return render(request, "courses/join.html", context, status=429)
        return redirect("courses:detail", course.slug)
    return render(request, "courses/join.html", {"course": course, "member": member})


@login_required
@require_GET
def problem_statistics(request: SignedInRequest, slug: str) -> HttpResponse:
    """The course staff's statistics of an assignment's problems (``?assignment=SLUG``; the one
    released last by default): who tried and solved each, in how many Submits and how long, and
    which hidden property the class's best hand-ins failed most, on which inputs; the same as
    CSV (``format=csv``). Never what a submission printed under the hidden tests."""
    course = course_for_its_staff(request, slug)
    assignments = list(course.assignments.all())
    chosen = request.GET.get("assignment", "")
    found = (
        next((a for a in assignments if a.slug == chosen), None)
        if chosen
        else current_assignment(assignments, timezone.now())
    )
    if chosen and found is None:
        raise Http404("No such assignment in this course.")
    stats = AssignmentStatistics.of(found) if found is not None else None
    submission_url = reverse("courses:submission", args=(course.slug, 0)).removesuffix("0/")
    if request.GET.get("format") == "csv" and stats is not None:
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{course.slug}-{stats.assignment.slug}-statistics.csv"'
        stats.write_csv(response, lambda pk: request.build_absolute_uri(f"{submission_url}{pk}/"))
        return response
    context = {"course": course, "assignments": assignments, "stats": stats, "submission_url": submission_url}
    return render(request, "courses/statistics.html", context)
