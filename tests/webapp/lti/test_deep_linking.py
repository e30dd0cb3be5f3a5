"""LTI deep linking: an instructor picks an assignment and the platform gets a signed link with
a line item; a student makes none."""

from __future__ import annotations

import pytest

from tests.webapp.support.lti_course import (
    ALICE,
    ASSIGNMENT_SLUG,
    SAM,
    browser,
    linked_course,
    refused,
)
from tests.webapp.support.lti_platform import form_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_instructor_picks_an_assignment_and_the_platform_gets_a_signed_link_with_a_line_item(platform):
    course = linked_course(platform)
    session = browser()

    answer = platform.launch(session, ALICE, message_type="LtiDeepLinkingRequest")

    assert answer.status_code == 302 and answer.headers["Location"] == "/lti/deep-link/"
    picker = session.get(f"{platform.tool_url}/lti/deep-link/")
    assert picker.status_code == 200 and "Week 1: tracing" in picker.text and "15 points" in picker.text
    response_page = session.post(
        f"{platform.tool_url}/lti/deep-link/",
        data={"assignment": ASSIGNMENT_SLUG, "csrfmiddlewaretoken": session.cookies["csrftoken"]},
        headers={"Referer": f"{platform.tool_url}/lti/deep-link/"},
    )
    assert response_page.status_code == 200, response_page.text[:300]
    action, fields = form_of(response_page.text, "lti-deep-link-response")
    assert action == f"{platform.base_url}/deep_link_return"
    returned = session.post(action, data=fields)

    assert returned.status_code == 200, platform.refusals  # the platform checked the tool's signature
    (response,) = platform.deep_link_responses
    (item,) = response["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["type"] == "ltiResourceLink"
    assert item["url"] == f"{platform.tool_url}/lti/launch/"
    assert item["custom"] == {"jaxjudge_assignment": ASSIGNMENT_SLUG}
    assert item["lineItem"]["scoreMaximum"] == 15.0
    assert course.assignments.get(slug=ASSIGNMENT_SLUG).total_points == 15.0
    # One answer per request.
    assert session.get(f"{platform.tool_url}/lti/deep-link/").status_code == 400


def test_a_student_cannot_make_a_deep_link(canvas):
    linked_course(canvas)
    session = browser()

    answer = canvas.launch(session, SAM, message_type="LtiDeepLinkingRequest")

    refused(answer, session, 403, "Only an instructor")
