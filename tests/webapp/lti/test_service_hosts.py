"""A platform's service URLs are on its own hosts: the tool calls no other address a launch,
a roster page or a deep link names, unless the registration's policy lists it (attack 9)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from lti_tool.models import LtiDeployment

from grader.problem import load_problem
from tests.webapp.support.lti_claims import (
    AGS,
    NRPS,
)
from tests.webapp.support.lti_course import (
    ALICE,
    ASSIGNMENT_SLUG,
    SAM,
    browser,
    hand_in,
    linked_course,
    roster_member,
    run_lti_tasks,
    session_user,
)
from webapp.catalog.models import Problem
from webapp.courses.models import Assignment, AssignmentProblem
from webapp.lti.models import AssignmentLink, CourseLink, PlatformPolicy
from webapp.submissions.models import Submission
from webapp.submissions.signals import graded

pytestmark = pytest.mark.django_db(transaction=True)


def test_service_urls_of_a_launch_off_the_platform_s_hosts_are_never_called(canvas, internal):
    def elsewhere(claims: dict[str, Any]) -> None:
        claims[NRPS]["context_memberships_url"] = f"{internal.base_url}/admin/api/members"
        claims[AGS]["lineitem"] = f"{internal.base_url}/line_items/1"
        claims[AGS]["lineitems"] = f"{internal.base_url}/line_items"

    assert canvas.launch(browser(), ALICE, tamper=elsewhere).status_code == 302
    course = CourseLink.objects.get().course
    assignment = Assignment.objects.create(
        course=course, slug="w", title="W", release_at=timezone.now(), due_at=timezone.now() + timedelta(days=1)
    )
    Problem.install(load_problem("aot_compiled_sum"))
    AssignmentProblem.objects.create(assignment=assignment, problem=Problem.objects.get(slug="aot_compiled_sum"))
    session = browser()
    assert canvas.launch(session, SAM, tamper=elsewhere, custom={"jaxjudge_assignment": "w"}).status_code == 302
    student = session_user(session)
    assert student is not None

    run_lti_tasks()
    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0))
    run_lti_tasks()

    assert internal.requests == []
    context = CourseLink.objects.get().context
    assert (context.memberships_url, context.lineitems_url) == ("", "")
    assert AssignmentLink.objects.get().line_item_url == ""


@pytest.mark.parametrize("how", ["next-page", "redirect"])
def test_a_roster_page_that_leads_off_the_platform_s_hosts_is_not_followed(canvas, internal, how):
    linked_course(canvas)
    target = f"{internal.base_url}/internal/secrets"

    def leading_elsewhere(request: Any, **_: Any) -> Any:
        canvas.check_bearer(request, "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly")
        if how == "redirect":
            return 302, {"Location": target}, b""
        headers = {"Content-Type": "application/json", "Link": f'<{target}>; rel="next"'}
        return 200, headers, json.dumps({"members": [roster_member(SAM)]}).encode()

    canvas.serve_roster = leading_elsewhere

    (result,) = run_lti_tasks()

    assert result.status == "FAILED"
    assert internal.requests == []


def test_the_registration_s_policy_lists_more_service_hosts(canvas, internal):
    registration = LtiDeployment.objects.get(deployment_id=canvas.deployment_id).registration
    PlatformPolicy.objects.create(registration=registration, service_hosts=f"  {internal.host}\n")

    def school_host(claims: dict[str, Any]) -> None:
        claims[NRPS]["context_memberships_url"] = f"{internal.base_url}/api/lti/courses/101/names_and_roles"

    assert canvas.launch(browser(), ALICE, tamper=school_host).status_code == 302
    (result,) = run_lti_tasks()

    assert result.status == "SUCCESSFUL", result.traceback
    assert [seen["path"] for seen in internal.requests] == ["/api/lti/courses/101/names_and_roles"]
    assert internal.requests[0]["authorization"].startswith("Bearer ")


def test_a_deep_link_return_url_off_the_platform_s_hosts_is_refused(canvas, internal):
    linked_course(canvas)
    session = browser()

    def elsewhere(claims: dict[str, Any]) -> None:
        settings = claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"]
        settings["deep_link_return_url"] = f"{internal.base_url}/return"

    assert canvas.launch(session, ALICE, message_type="LtiDeepLinkingRequest", tamper=elsewhere).status_code == 302
    answer = session.post(
        f"{canvas.tool_url}/lti/deep-link/",
        data={"assignment": ASSIGNMENT_SLUG, "csrfmiddlewaretoken": session.cookies["csrftoken"]},
        headers={"Referer": f"{canvas.tool_url}/lti/deep-link/"},
    )

    assert answer.status_code == 400 and "on its own hosts" in answer.text
    assert internal.base_url not in answer.text
