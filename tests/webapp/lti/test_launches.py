"""LTI 1.3 launches from Canvas and from Moodle (a real platform over HTTP,
``tests/webapp/support/lti_platform.py``): who a launch signs in and where it lands, and the
hostile launches, each refused with a 4xx that says why and nobody signed in."""

from __future__ import annotations

from datetime import timedelta

import pytest
import requests
from django.contrib.auth.models import User
from django.utils import timezone
from jwcrypto.jwk import JWK
from lti_tool.models import LtiDeployment

from tests.webapp.support.lti_claims import (
    DEPLOYMENT_ID,
    LEARNER,
    MENTOR,
    Person,
)
from tests.webapp.support.lti_course import (
    ALICE,
    ASSIGNMENT_SLUG,
    SAM,
    TED,
    browser,
    linked_course,
    refused,
    session_user,
)
from webapp.courses.models import Membership
from webapp.lti import people
from webapp.lti.models import AssignmentLink, CourseLink, PlatformAccount

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_instructor_s_first_launch_makes_the_course_and_signs_them_in_as_its_instructor(platform):
    session = browser()

    answer = platform.launch(session, ALICE)

    assert answer.status_code == 302
    link = CourseLink.objects.get(context__id_on_platform=platform.context_id)
    assert link.course.title == "JAX from the ground up"
    assert answer.headers["Location"] == f"/courses/{link.course.slug}/"
    alice = session_user(session)
    assert alice is not None and link.course.is_instructor(alice)
    # Keyed on the registration, deployment and sub, named from neither the name nor the email.
    key = {
        "deployment__registration__issuer": platform.issuer,
        "deployment__registration__client_id": platform.client_id,
    }
    assert (
        PlatformAccount.objects.get(**key, deployment__deployment_id=platform.deployment_id, sub=ALICE.sub).user
        == alice
    )
    assert alice.username.startswith("lti-") and "alice" not in alice.username.lower()
    assert (alice.first_name, alice.last_name, alice.email) == ("Alice", "Teacher", "alice@example.edu")
    assert not alice.has_usable_password()
    page = session.get(f"{platform.tool_url}{answer.headers['Location']}")
    assert page.status_code == 200 and "JAX from the ground up" in page.text
    # They add the course's assignments in the admin, which shows them their course alone.
    assert alice.is_staff and not alice.is_superuser
    adding = session.get(f"{platform.tool_url}/admin/courses/assignment/add/?course={link.course.pk}")
    assert adding.status_code == 200 and "JAX from the ground up" in adding.text


def test_a_student_launch_signs_in_enrols_as_student_and_lands_on_the_assignment(platform):
    course = linked_course(platform)
    session = browser()

    answer = platform.launch(session, SAM, custom={"jaxjudge_assignment": ASSIGNMENT_SLUG})

    assert answer.status_code == 302
    assert answer.headers["Location"] == f"/courses/{course.slug}/{ASSIGNMENT_SLUG}/"
    sam = session_user(session)
    assert sam is not None
    assert course.membership_of(sam).role == Membership.Role.STUDENT  # type: ignore[union-attr]
    page = session.get(f"{platform.tool_url}{answer.headers['Location']}")
    assert page.status_code == 200 and "Week 1: tracing" in page.text
    link = AssignmentLink.objects.get(assignment__slug=ASSIGNMENT_SLUG)
    assert link.line_item_url == platform.line_item_url(1) and link.can_publish_scores
    # A second launch is the same account, whatever name it sends now.
    renamed = Person(SAM.sub, "Samantha", "Student", "sam@example.edu", LEARNER)
    again = browser()
    assert platform.launch(again, renamed).status_code == 302
    assert session_user(again) == sam and User.objects.get(pk=sam.pk).first_name == "Samantha"


def test_a_teaching_assistant_launch_gives_the_ta_role_not_the_instructor_s(platform):
    course = linked_course(platform)
    session = browser()

    assert platform.launch(session, TED).status_code == 302

    ted = session_user(session)
    assert ted is not None and course.membership_of(ted).role == Membership.Role.TA  # type: ignore[union-attr]
    assert not ted.is_staff  # the admin is for instructors


def test_a_student_before_the_instructor_finds_the_course_not_set_up_and_is_not_signed_in(platform):
    session = browser()

    answer = platform.launch(session, SAM)

    assert answer.status_code == 404
    assert "not set up on jaxjudge yet" in answer.text
    assert session_user(session) is None and not CourseLink.objects.exists()


def test_the_tool_s_key_set_is_served_and_made_on_first_use(live_server):
    keys = requests.get(f"{live_server.url}/lti/jwks/").json()["keys"]

    assert len(keys) == 1 and keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256" and keys[0]["kid"]
    assert "d" not in keys[0]  # the public half only
    assert requests.get(f"{live_server.url}/lti/jwks/").json()["keys"] == keys


# Hostile launches: each refused with a 4xx that says why, and nobody signed in.


def test_a_launch_signed_with_another_key_is_refused(platform):
    forger = JWK.generate(kty="RSA", size=2048, kid=platform.key["kid"])  # the platform's kid, not its key
    session = browser()

    answer = platform.launch(session, ALICE, signing_key=forger)

    refused(answer, session, 403, "signature could not be verified")
    assert not CourseLink.objects.exists() and not PlatformAccount.objects.exists()


@pytest.mark.parametrize(
    ("tamper", "status", "words"),
    [
        (lambda claims: claims.update(aud="another-tool"), 403, "not registered with jaxjudge"),
        (lambda claims: claims.update(aud=[claims["aud"], "another-tool"], azp="another-tool"), 403, "another tool"),
        (lambda claims: claims.update(iss="https://lms.example.org"), 403, "not registered with jaxjudge"),
        (lambda claims: claims.update(exp=claims["iat"] - 10, iat=claims["iat"] - 400), 400, "expired"),
        (lambda claims: claims.pop("exp"), 400, "lacks a required claim"),
        (lambda claims: claims.update(sub="x" * 300), 400, "1 to 255 printable characters"),
    ],
    ids=["wrong-audience", "another-authorised-party", "unknown-issuer", "expired", "no-expiry", "huge-sub"],
)
def test_a_launch_for_someone_else_or_out_of_date_is_refused(canvas, tamper, status, words):
    session = browser()

    answer = canvas.launch(session, ALICE, tamper=tamper)

    refused(answer, session, status, words)
    assert not CourseLink.objects.exists()


def test_a_launch_from_an_unknown_deployment_is_refused_until_the_administrator_activates_it(platform):
    session = browser()

    answer = platform.launch(session, ALICE, tamper=lambda claims: claims.update({DEPLOYMENT_ID: "99"}))

    refused(answer, session, 403, "not activated for this deployment")
    # Recorded, inactive, for the administrator to activate in the admin.
    assert LtiDeployment.objects.get(deployment_id="99").is_active is False


def test_an_id_token_is_used_once(platform):
    first = browser()
    action, fields = platform.launch_form(first, ALICE)
    assert first.post(action, data=fields, allow_redirects=False).status_code == 302
    # Once a launch has gone through, pylti1p3 lets its id_token past the state check from
    # any browser: the nonce, used up, is what refuses it.
    replay = browser()

    answer = replay.post(action, data=fields, allow_redirects=False)

    refused(answer, replay, 400, "used already")


@pytest.mark.parametrize(
    "form_tamper",
    [lambda fields: fields.pop("state"), lambda fields: fields.update(state="state-forged")],
    ids=["missing-state", "forged-state"],
)
def test_a_launch_whose_state_is_not_this_browser_s_is_refused(canvas, form_tamper):
    session = browser()

    answer = canvas.launch(session, ALICE, form_tamper=form_tamper)

    refused(answer, session, 400, "did not start in this browser")


def test_a_launch_that_did_not_start_at_the_tool_is_refused(canvas):
    # The id_token reaches the tool without the browser's state cookie from the login.
    action, fields = canvas.launch_form(browser(), ALICE)
    stranger = browser()

    answer = stranger.post(action, data=fields, allow_redirects=False)

    refused(answer, stranger, 400, "did not start in this browser")


def test_a_role_that_gives_no_access_is_refused_with_a_clear_page(platform):
    linked_course(platform)
    session = browser()
    mentor = Person("d4a3f5e7-0b6e-4eb0-8c9f-5c9f4b3ecd44", "Max", "Mentor", "max@example.edu", MENTOR)

    answer = platform.launch(session, mentor)

    refused(answer, session, 403, "gives no access to jaxjudge")
    assert not PlatformAccount.objects.filter(sub=mentor.sub).exists()


def test_a_login_from_an_unregistered_platform_and_a_giant_id_token_are_refused(canvas):
    session = browser()
    login = session.post(
        f"{canvas.tool_url}/lti/login/",
        data={"iss": "https://lms.example.org", "login_hint": "1", "client_id": "x", "target_link_uri": "x"},
        allow_redirects=False,
    )
    refused(login, session, 403, "not registered with jaxjudge")

    giant = session.post(f"{canvas.tool_url}/lti/launch/", data={"id_token": "a" * 70_000, "state": "s"})
    refused(giant, session, 400, "too large")


# Launches are rate-limited (item 6)


def test_too_many_launches_a_minute_are_refused_with_a_clear_page(canvas, monkeypatch):
    monkeypatch.setattr(people, "MAX_LAUNCHES_PER_MINUTE", 3)
    linked_course(canvas)  # the first launch
    for _ in range(2):
        assert canvas.launch(browser(), ALICE).status_code == 302
    session = browser()

    answer = canvas.launch(session, ALICE)

    refused(answer, session, 429, "Too many launches")
    # Another person is not held up, and a minute later she is let in again.
    assert canvas.launch(browser(), SAM).status_code == 302
    PlatformAccount.objects.filter(sub=ALICE.sub).update(launch_window_at=timezone.now() - timedelta(minutes=1))
    assert canvas.launch(browser(), ALICE).status_code == 302
