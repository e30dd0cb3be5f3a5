"""Who an LTI launch makes someone: a role counts in the linked course only, and an account is
keyed on the platform's registration and deployment, so another of either is another person."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from lti_tool.models import LtiDeployment

from tests.webapp.support.lti_claims import (
    DEPLOYMENT_ID,
    INSTRUCTOR,
    LEARNER,
    TEACHING_ASSISTANT,
    Person,
)
from tests.webapp.support.lti_course import (
    ALICE,
    as_,
    browser,
    linked_course,
    roster_member,
    run_lti_tasks,
    session_user,
)
from tests.webapp.support.lti_platform import Platform
from webapp.courses.instructors import CREATORS_GROUP_NAME
from webapp.courses.models import Course, Membership
from webapp.lti.models import CourseLink, PlatformAccount, PlatformPolicy

pytestmark = pytest.mark.django_db(transaction=True)


# An LTI role counts in the linked course only (attack 3)


def test_an_lms_instructor_teaches_the_linked_course_only_and_a_later_learner_launch_takes_it_back(canvas):
    course = linked_course(canvas)
    session = browser()
    assert canvas.launch(session, ALICE).status_code == 302
    alice = session_user(session)
    assert alice is not None and alice.is_staff
    admin = f"{canvas.tool_url}/admin"
    assert session.get(f"{admin}/courses/assignment/add/?course={course.pk}").status_code == 200
    # Teaching this course is not creating courses on the site (the registration's policy is off).
    assert session.get(f"{admin}/courses/course/add/").status_code == 403
    assert not alice.groups.filter(name=CREATORS_GROUP_NAME).exists()

    # The platform says she is a learner now: nothing of the admin is left to her.
    assert canvas.launch(browser(), as_(ALICE, LEARNER)).status_code == 302

    alice.refresh_from_db()
    assert course.membership_of(alice).role == Membership.Role.STUDENT  # type: ignore[union-attr]
    assert not alice.is_staff and not alice.groups.exists()
    assert session.get(f"{admin}/courses/assignment/add/", allow_redirects=False).status_code == 302  # to login


def test_a_registration_s_policy_lets_its_instructors_create_courses_until_a_roster_says_otherwise(canvas):
    registration = LtiDeployment.objects.get(deployment_id=canvas.deployment_id).registration
    PlatformPolicy.objects.create(registration=registration, instructors_may_create_courses=True)
    linked_course(canvas)
    session = browser()
    assert canvas.launch(session, ALICE).status_code == 302
    assert session.get(f"{canvas.tool_url}/admin/courses/course/add/").status_code == 200
    run_lti_tasks()  # the sync the launches queued, on an empty roster

    # The roster now lists her as a TA: the teaching group, staff and course creation go.
    canvas.roster = [roster_member(as_(ALICE, TEACHING_ASSISTANT))]
    call_command("lti_sync_roster", CourseLink.objects.get().course.slug, stdout=io.StringIO())

    alice = session_user(session)
    assert alice is None or not alice.is_staff  # the session may be over; the account is what counts
    account = PlatformAccount.objects.get(sub=ALICE.sub).user
    assert not account.is_staff and not account.groups.exists()
    assert session.get(f"{canvas.tool_url}/admin/courses/course/add/", allow_redirects=False).status_code == 302


def test_an_instructor_made_by_hand_keeps_the_admin_after_a_learner_launch(canvas):
    linked_course(canvas)
    alice = PlatformAccount.objects.get(sub=ALICE.sub).user
    call_command("instructor", alice.username, stdout=io.StringIO())

    assert canvas.launch(browser(), as_(ALICE, LEARNER)).status_code == 302

    alice.refresh_from_db()
    assert alice.is_staff and alice.groups.filter(name=CREATORS_GROUP_NAME).exists()


# Accounts per registration and deployment (attack 4)


def test_another_registration_of_the_same_issuer_is_another_person_and_renames_no_one(canvas, live_server):
    linked_course(canvas)
    alice = PlatformAccount.objects.get(sub=ALICE.sub).user
    # Another school on Canvas Cloud: the same issuer, its own developer key, the same sub.
    mallory = Person(ALICE.sub, "Mallory", "Mallet", "mallory@example.net", INSTRUCTOR)
    with Platform("canvas", live_server.url, other_client_id="20000000000077").serving() as other:
        other.register()
        assert other.issuer == canvas.issuer
        session = browser()
        assert other.launch(session, mallory).status_code == 302

    them = session_user(session)
    assert them is not None and them != alice
    alice.refresh_from_db()
    assert (alice.first_name, alice.email) == ("Alice", "alice@example.edu")
    assert (them.first_name, them.email) == ("Mallory", "mallory@example.net")
    assert them.username != alice.username
    # Each is in their own course only.
    theirs = CourseLink.objects.get(context__deployment__registration__client_id="20000000000077")
    hers = CourseLink.objects.get(context__deployment__registration__client_id=canvas.client_id)
    assert theirs.course != hers.course and not hers.course.membership_of(them)


def test_another_deployment_of_the_same_registration_is_another_person(canvas):
    linked_course(canvas)
    alice = PlatformAccount.objects.get(sub=ALICE.sub).user
    registration = LtiDeployment.objects.get(deployment_id=canvas.deployment_id).registration
    LtiDeployment.objects.create(registration=registration, deployment_id="77:another-school", is_active=True)
    session = browser()

    answer = canvas.launch(
        session, as_(ALICE, LEARNER), tamper=lambda claims: claims.update({DEPLOYMENT_ID: "77:another-school"})
    )

    assert answer.status_code == 404  # that deployment's course is not set up: she is nobody there yet
    assert PlatformAccount.objects.filter(sub=ALICE.sub).count() == 1
    assert session_user(session) is None
    mallory = Person(ALICE.sub, "Mallory", "Mallet", "mallory@example.net", INSTRUCTOR)
    assert (
        canvas.launch(session, mallory, tamper=lambda c: c.update({DEPLOYMENT_ID: "77:another-school"})).status_code
        == 302
    )
    them = session_user(session)
    assert them is not None and them != alice
    alice.refresh_from_db()
    assert alice.first_name == "Alice" and course_of(alice).is_instructor(alice)


def course_of(user: User) -> Course:
    return Course.objects.get(memberships__user=user)
