"""The tool's endpoints: OIDC login initiation, the launch, the tool's key set, and the
instructor's pick of an assignment for a deep-linking request.

A launch that is not let in gets a page that says why, with a 4xx status, and signs nobody in.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import auth
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from lti_tool.models import Key

from webapp.accounts.requests import SignedInRequest
from webapp.courses.models import Membership
from webapp.lti import launches, tasks, tool
from webapp.lti.claims import ASSIGNMENT_PARAMETER, LaunchClaims, LaunchRefused
from webapp.lti.models import CourseLink

DEEP_LINK_SESSION_KEY = "lti_deep_link"
MAX_LOGIN_PARAMETER = 2048


def refused(request: HttpRequest, refusal: LaunchRefused) -> HttpResponse:
    return render(request, "lti/refused.html", {"message": refusal.message}, status=refusal.status)


@csrf_exempt  # the platform posts (or links) here from its own site
@require_http_methods(["GET", "POST"])
def login(request: HttpRequest, registration_uuid: uuid.UUID | None = None) -> HttpResponse:
    """OIDC third-party-initiated login: on to the platform's authorisation endpoint."""
    params = request.POST if request.method == "POST" else request.GET
    if not params.get("iss") or not params.get("login_hint"):
        return refused(request, LaunchRefused("This is not an LTI login: it names no issuer or login hint."))
    if any(len(value) > MAX_LOGIN_PARAMETER for value in params.values()):
        return refused(request, LaunchRefused("This LTI login's parameters are too long."))
    launch_url = request.build_absolute_uri(reverse("lti:launch"))
    try:
        response: HttpResponse = tool.oidc_login_redirect(request, launch_url, registration_uuid)
    except Exception:  # pylti1p3's OIDCException, or a malformed parameter
        tool.logger.warning("LTI login refused for issuer %r", params.get("iss", "")[:200])
        return refused(
            request,
            LaunchRefused(
                "This platform is not registered with jaxjudge (its issuer and client id are unknown here).", 403
            ),
        )
    return response


@csrf_exempt  # the platform's form posts the id_token here
@require_POST
def launch(request: HttpRequest) -> HttpResponse:
    try:
        message_launch = tool.validated_launch(request)
        arrival = launches.arrive(message_launch)
    except LaunchRefused as refusal:
        return refused(request, refusal)
    auth.login(request, arrival.account, backend="django.contrib.auth.backends.ModelBackend")
    # An instructor's launch brings the roster up to date: one sync at a time, every few minutes at most.
    link = arrival.link
    if arrival.role == Membership.Role.INSTRUCTOR and link.context.memberships_url and link.claim_roster_sync():
        tasks.sync_roster.enqueue(link.pk)
    course = arrival.link.course
    if arrival.deep_linking:
        request.session[DEEP_LINK_SESSION_KEY] = {
            "launch_id": message_launch.get_launch_id(),
            "course_link_id": arrival.link.pk,
        }
        return redirect("lti:deep_link")
    assignment = arrival.assignment
    if assignment is not None and course.visible_assignments(arrival.account, timezone.now()).filter(pk=assignment.pk):
        return redirect("courses:assignment", course.slug, assignment.slug)
    return redirect("courses:detail", course.slug)


@require_GET
def jwks(request: HttpRequest) -> JsonResponse:
    """The tool's public keys, with which platforms check what the tool signs."""
    tool.ensure_tool_key()
    return JsonResponse(Key.objects.as_jwks())


@login_required
@require_http_methods(["GET", "POST"])
def deep_link(request: SignedInRequest) -> HttpResponse:
    """The instructor picks one of the course's assignments; the platform gets a signed
    resource link to it, with a line item worth the assignment's points."""
    pending: Any = request.session.get(DEEP_LINK_SESSION_KEY)
    if not isinstance(pending, dict):
        return refused(request, LaunchRefused("There is no deep-linking request: start from your course's page."))
    course_link_id = pending.get("course_link_id")
    link = (
        CourseLink.objects.filter(pk=course_link_id).select_related("course").first()
        if isinstance(course_link_id, int)
        else None
    )
    if link is None or not link.course.is_instructor(request.user):
        return refused(request, LaunchRefused("Only the course's instructor adds its assignments.", 403))
    assignments = link.course.assignments.all()
    if request.method == "GET":
        return render(request, "lti/deep_link.html", {"course": link.course, "assignments": assignments})
    chosen = assignments.filter(slug=request.POST.get("assignment", "")[:50]).first()
    if chosen is None:
        return render(
            request,
            "lti/deep_link.html",
            {"course": link.course, "assignments": assignments, "error": "Pick one of the course's assignments."},
            status=400,
        )
    try:
        message_launch = tool.restored_launch(request, str(pending.get("launch_id", "")))
        registration = tool.registration_of(message_launch)
        claims = LaunchClaims.read(
            tool.launch_data(message_launch), registration.client_id, hosts=tool.service_hosts(registration)
        )
    except LaunchRefused as refusal:
        return refused(request, refusal)
    if not claims.deep_link_return_url:
        return refused(
            request,
            LaunchRefused("The platform gave no http(s) address on its own hosts to return the link to."),
        )
    jwt = tool.deep_link_response_jwt(
        message_launch,
        url=request.build_absolute_uri(reverse("lti:launch")),
        title=chosen.title,
        custom={ASSIGNMENT_PARAMETER: chosen.slug},
        score_maximum=chosen.total_points,
        resource_id=f"assignment-{chosen.pk}",
    )
    del request.session[DEEP_LINK_SESSION_KEY]  # one answer per request
    context = {"return_url": claims.deep_link_return_url, "jwt": jwt, "assignment": chosen}
    return render(request, "lti/deep_link_response.html", context)
