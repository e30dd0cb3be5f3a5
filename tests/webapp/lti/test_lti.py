"""LTI 1.3: launches from Canvas and from Moodle (a real platform over HTTP, tests/webapp/support/lti_platform.py),
deep linking, the roster from Names and Roles, scores to the platform's gradebook, and the
launches that must be refused."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import requests
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from jwcrypto.jwk import JWK
from lti_tool.models import LtiDeployment

from grader.problem import load_problem
from tests.webapp.support.course_tasks import run_courses_tasks
from tests.webapp.support.lti_platform import (
    INSTRUCTOR,
    LEARNER,
    MENTOR,
    TEACHING_ASSISTANT,
    InternalService,
    Person,
    Platform,
    form_of,
)
from webapp.catalog.models import Problem
from webapp.courses.instructors import CREATORS_GROUP_NAME
from webapp.courses.models import Assignment, AssignmentProblem, Course, Extension, Membership, Override
from webapp.lti import people
from webapp.lti.models import AssignmentLink, CourseLink, PlatformAccount, PlatformPolicy, ScorePublication
from webapp.submissions.models import Submission
from webapp.submissions.signals import graded

pytestmark = pytest.mark.django_db(transaction=True)

ALICE = Person("a1f0c2d4-7e3b-4b8e-9d7a-2f6c1e0b9a11", "Alice", "Teacher", "alice@example.edu", INSTRUCTOR)
TED = Person("b2e1d3c5-8f4c-4c9f-ae8b-3a7d2f1cab22", "Ted", "Assistant", "ted@example.edu", TEACHING_ASSISTANT)
SAM = Person("c3f2e4d6-9a5d-4daf-bf9c-4b8e3a2dbc33", "Sam", "Student", "sam@example.edu", LEARNER)
ASSIGNMENT_SLUG = "week-1"


@pytest.fixture(params=["canvas", "moodle"])
def platform(request: pytest.FixtureRequest, live_server: Any) -> Iterator[Platform]:
    with Platform(request.param, live_server.url).serving() as platform:
        platform.register()
        yield platform


@pytest.fixture
def canvas(live_server: Any) -> Iterator[Platform]:
    with Platform("canvas", live_server.url).serving() as platform:
        platform.register()
        yield platform


@pytest.fixture
def internal() -> Iterator[InternalService]:
    with InternalService().serving() as service:
        yield service


def browser() -> requests.Session:
    return requests.Session()


def signed_in(session: requests.Session) -> User | None:
    """Who the tool's session cookie in ``session`` signs in, if anyone."""
    key = session.cookies.get("sessionid")
    if not key:
        return None
    user_id = SessionStore(session_key=key).get("_auth_user_id")
    return User.objects.filter(pk=user_id).first() if user_id else None


def linked_course(platform: Platform) -> Course:
    """The course an instructor's first launch makes, with a two-problem assignment worth 15 points."""
    answer = platform.launch(browser(), ALICE)
    assert answer.status_code == 302, answer.text
    course = CourseLink.objects.get(context__id_on_platform=platform.context_id).course
    now = timezone.now()
    assignment = Assignment.objects.create(
        course=course,
        slug=ASSIGNMENT_SLUG,
        title="Week 1: tracing",
        release_at=now - timedelta(days=1),
        due_at=now + timedelta(days=7),
    )
    Problem.install(load_problem("aot_compiled_sum"))
    Problem.install(load_problem("batched_dot"))
    for position, (slug, points) in enumerate([("aot_compiled_sum", 10), ("batched_dot", 5)]):
        AssignmentProblem.objects.create(
            assignment=assignment, problem=Problem.objects.get(slug=slug), position=position, points=points
        )
    return course


def run_lti_tasks() -> list[DBTaskResult]:
    """Run the queued LTI tasks as the courses worker does (not the rosters' or the gradings')."""
    return run_courses_tasks("webapp.lti.tasks.")


# Launches


def test_an_instructor_s_first_launch_makes_the_course_and_signs_them_in_as_its_instructor(platform):
    session = browser()

    answer = platform.launch(session, ALICE)

    assert answer.status_code == 302
    link = CourseLink.objects.get(context__id_on_platform=platform.context_id)
    assert link.course.title == "JAX from the ground up"
    assert answer.headers["Location"] == f"/courses/{link.course.slug}/"
    alice = signed_in(session)
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
    sam = signed_in(session)
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
    assert signed_in(again) == sam and User.objects.get(pk=sam.pk).first_name == "Samantha"


def test_a_teaching_assistant_launch_gives_the_ta_role_not_the_instructor_s(platform):
    course = linked_course(platform)
    session = browser()

    assert platform.launch(session, TED).status_code == 302

    ted = signed_in(session)
    assert ted is not None and course.membership_of(ted).role == Membership.Role.TA  # type: ignore[union-attr]
    assert not ted.is_staff  # the admin is for instructors


def test_a_student_before_the_instructor_finds_the_course_not_set_up_and_is_not_signed_in(platform):
    session = browser()

    answer = platform.launch(session, SAM)

    assert answer.status_code == 404
    assert "not set up on jaxjudge yet" in answer.text
    assert signed_in(session) is None and not CourseLink.objects.exists()


def test_the_tool_s_key_set_is_served_and_made_on_first_use(live_server):
    keys = requests.get(f"{live_server.url}/lti/jwks/").json()["keys"]

    assert len(keys) == 1 and keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256" and keys[0]["kid"]
    assert "d" not in keys[0]  # the public half only
    assert requests.get(f"{live_server.url}/lti/jwks/").json()["keys"] == keys


# Hostile launches: each refused with a 4xx that says why, and nobody signed in.


def refused(answer: requests.Response, session: requests.Session, status: int, words: str) -> None:
    assert answer.status_code == status, (answer.status_code, answer.text[:300])
    assert words in answer.text
    assert "Traceback" not in answer.text
    assert signed_in(session) is None


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

    answer = platform.launch(session, ALICE, tamper=lambda claims: claims.update({claims_key(): "99"}))

    refused(answer, session, 403, "not activated for this deployment")
    # Recorded, inactive, for the administrator to activate in the admin.
    assert LtiDeployment.objects.get(deployment_id="99").is_active is False


def claims_key() -> str:
    return "https://purl.imsglobal.org/spec/lti/claim/deployment_id"


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


# Deep linking


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


# Names and Roles


def roster_member(person: Person, status: str = "Active") -> dict[str, Any]:
    return {
        "user_id": person.sub,
        "status": status,
        "given_name": person.given_name,
        "family_name": person.family_name,
        "name": f"{person.given_name} {person.family_name}",
        "email": person.email,
        "roles": person.roles,
    }


def test_the_roster_sync_enrols_the_platform_s_members_with_their_roles(platform, capsys):
    course = linked_course(platform)
    run_lti_tasks()  # the sync the instructor's launch queued, on an empty roster
    ada = Person("e5b4a6f8-1c7f-4fc1-9da0-6da0c4fdde55", "Ada", "Learner", "not an email", LEARNER)
    left = Person("f6c5b7a9-2d8a-40d2-aeb1-7eb1d5aeef66", "Lee", "Left", "lee@example.edu", LEARNER)
    mentor = Person("a7d6c8ba-3e9b-41e3-bfc2-8fc2e6bf0a77", "Max", "Mentor", "max@example.edu", MENTOR)
    platform.roster = [
        roster_member(ALICE),
        roster_member(TED),
        roster_member(SAM),
        roster_member(ada),
        roster_member(left, status="Inactive"),
        roster_member(mentor),
    ]

    call_command("lti_sync_roster", course.slug)

    def role_of(person: Person) -> str | None:
        user = PlatformAccount.objects.filter(sub=person.sub).values_list("user", flat=True).first()
        return course.memberships.filter(user=user).values_list("role", flat=True).first()

    assert role_of(ALICE) == "instructor"
    assert role_of(TED) == "ta"
    assert role_of(SAM) == "student"
    assert role_of(ada) == "student"
    assert role_of(left) is None and role_of(mentor) is None
    assert User.objects.get(platform_accounts__sub=ada.sub).email == ""  # not an email: not kept
    assert "enrolled 3, updated 0, skipped 2" in capsys.readouterr().out  # Alice was in already
    assert not platform.refusals


def test_an_instructor_launch_queues_a_roster_sync(canvas):
    course = linked_course(canvas)
    canvas.roster = [roster_member(SAM)]
    canvas.launch(browser(), ALICE)

    ran = run_lti_tasks()

    assert {result.task_path for result in ran} == {"webapp.lti.tasks.sync_roster"}
    assert all(result.status == "SUCCESSFUL" for result in ran), [result.traceback for result in ran]
    sam = User.objects.get(platform_accounts__sub=SAM.sub)
    assert course.membership_of(sam).role == Membership.Role.STUDENT  # type: ignore[union-attr]


# Scores to the platform


def launched_student(platform: Platform) -> tuple[Course, User]:
    course = linked_course(platform)
    session = browser()
    assert platform.launch(session, SAM, custom={"jaxjudge_assignment": ASSIGNMENT_SLUG}).status_code == 302
    student = signed_in(session)
    assert student is not None
    run_lti_tasks()  # the instructor's roster sync
    return course, student


def hand_in(student: User, slug: str, fraction: float, kind: str = Submission.Kind.SUBMIT) -> Submission:
    return Submission.objects.create(
        user=student,
        problem=Problem.objects.get(slug=slug),
        kind=kind,
        code="def f(x):\n    return x\n",
        status=Submission.Status.GRADED,
        score=fraction,
        max_score=1.0,
    )


def test_a_graded_submit_sends_the_student_s_points_on_the_assignment_to_its_line_item(platform):
    _, student = launched_student(platform)

    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0))
    ran = run_lti_tasks()

    assert [result.status for result in ran] == ["SUCCESSFUL"], [result.traceback for result in ran]
    (sent,) = platform.scores
    assert sent["line_item"] == platform.line_item_url(1).split("?")[0].removeprefix(platform.base_url)
    score = sent["score"]
    assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == (SAM.sub, 10.0, 15.0)
    assert (score["activityProgress"], score["gradingProgress"]) == ("Submitted", "FullyGraded")
    assert score["timestamp"].endswith("+00:00")
    assert ScorePublication.objects.get().status == ScorePublication.Status.SENT


def test_a_run_sends_nothing_and_an_override_sends_the_new_total(canvas):
    course, student = launched_student(canvas)
    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0, Submission.Kind.RUN))
    assert run_lti_tasks() == []

    item = course.assignments.get().items.get(problem__slug="batched_dot")
    Override.objects.create(item=item, user=student, points=3, reason="a regrade by hand")
    run_lti_tasks()

    (sent,) = canvas.scores
    assert (sent["score"]["scoreGiven"], sent["score"]["scoreMaximum"]) == (3.0, 15.0)


def test_an_extension_a_new_deadline_or_new_points_send_the_new_standing(canvas):
    course, student = launched_student(canvas)
    assignment = course.assignments.get()
    assignment.due_at = timezone.now() - timedelta(days=1)
    assignment.late_policy = Assignment.LatePolicy.HARD_CLOSE
    assignment.save()  # the deadline moved: every student's standing is sent again
    late = hand_in(student, "aot_compiled_sum", 1.0)  # handed in now: after the close
    graded.send(sender=Submission, submission=late)
    run_lti_tasks()
    assert canvas.scores[-1]["score"]["scoreGiven"] == 0.0

    extension = Extension.objects.create(
        assignment=assignment, user=student, due_at=timezone.now() + timedelta(days=1), reason="ill"
    )
    run_lti_tasks()
    assert canvas.scores[-1]["score"]["scoreGiven"] == 10.0  # on time under the extension

    item = assignment.items.get(problem__slug="aot_compiled_sum")
    item.points = 20
    item.save()
    run_lti_tasks()
    assert (canvas.scores[-1]["score"]["scoreGiven"], canvas.scores[-1]["score"]["scoreMaximum"]) == (20.0, 25.0)

    extension.delete()
    run_lti_tasks()
    assert canvas.scores[-1]["score"]["scoreGiven"] == 0.0


def test_a_platform_that_refuses_a_score_gets_it_again_later(canvas):
    _, student = launched_student(canvas)
    canvas.tokens.clear()
    original = canvas.serve_token
    canvas.serve_token = lambda **_: (503, {"Content-Type": "text/plain"}, b"down")

    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 0.5))
    run_lti_tasks()

    publication = ScorePublication.objects.get()
    assert (publication.status, publication.tries) == (ScorePublication.Status.RETRYING, 1)
    retry = DBTaskResult.objects.get(task_path="webapp.lti.tasks.send_scores", status="READY")
    assert retry.args_kwargs["args"][2] == 2 and retry.run_after > timezone.now()
    canvas.serve_token = original
    DBTaskResult.objects.filter(pk=retry.pk).update(run_after=timezone.now())
    run_lti_tasks()
    assert canvas.scores[-1]["score"]["scoreGiven"] == 5.0
    assert ScorePublication.objects.get().status == ScorePublication.Status.SENT


@pytest.mark.slow
def test_a_real_grading_sends_the_score_to_the_platform(canvas, sandboxes):
    """Through Submission.grade_attempt: needs its ``graded.send`` (see webapp/submissions/signals.py)."""
    _, student = launched_student(canvas)
    reference = load_problem("aot_compiled_sum").reference_solution.read_text()
    submission = Submission.objects.create(
        user=student,
        problem=Problem.objects.get(slug="aot_compiled_sum"),
        kind=Submission.Kind.SUBMIT,
        code=reference,
    )
    submission.enqueue()
    Submission.grade_attempt(submission.pk, submission.attempt)
    submission.refresh_from_db()
    assert submission.verdict == "accepted"

    run_lti_tasks()

    assert [sent["score"]["scoreGiven"] for sent in canvas.scores] == [10.0]


# An LTI role counts in the linked course only (issue 35, attack 3)


def as_(person: Person, roles: list[str]) -> Person:
    return Person(person.sub, person.given_name, person.family_name, person.email, roles)


def test_an_lms_instructor_teaches_the_linked_course_only_and_a_later_learner_launch_takes_it_back(canvas):
    course = linked_course(canvas)
    session = browser()
    assert canvas.launch(session, ALICE).status_code == 302
    alice = signed_in(session)
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

    alice = signed_in(session)
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

    them = signed_in(session)
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
        session, as_(ALICE, LEARNER), tamper=lambda claims: claims.update({claims_key(): "77:another-school"})
    )

    assert answer.status_code == 404  # that deployment's course is not set up: she is nobody there yet
    assert PlatformAccount.objects.filter(sub=ALICE.sub).count() == 1
    assert signed_in(session) is None
    mallory = Person(ALICE.sub, "Mallory", "Mallet", "mallory@example.net", INSTRUCTOR)
    assert (
        canvas.launch(session, mallory, tamper=lambda c: c.update({claims_key(): "77:another-school"})).status_code
        == 302
    )
    them = signed_in(session)
    assert them is not None and them != alice
    alice.refresh_from_db()
    assert alice.first_name == "Alice" and course_of(alice).is_instructor(alice)


def course_of(user: User) -> Course:
    return Course.objects.get(memberships__user=user)


# Scores only for the course's own students (attack 5)


CONTEXT = "https://purl.imsglobal.org/spec/lti/claim/context"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"


def in_another_course(claims: dict[str, Any]) -> None:
    claims[CONTEXT] = {"id": "another-course", "title": "Another course"}
    claims[AGS]["lineitem"] = (
        claims[AGS]["lineitem"].replace("/line_items/1", "/line_items/2").replace("/lineitems/1/", "/lineitems/2/")
    )


def test_a_score_goes_only_to_the_course_the_student_is_in(platform):
    _, student = launched_student(platform)
    # Another course on the same platform, with an assignment of the same problem.
    assert platform.launch(browser(), ALICE, tamper=in_another_course).status_code == 302
    other = CourseLink.objects.get(context__id_on_platform="another-course").course
    now = timezone.now()
    theirs = Assignment.objects.create(
        course=other, slug="theirs", title="Theirs", release_at=now - timedelta(days=1), due_at=now + timedelta(days=1)
    )
    AssignmentProblem.objects.create(assignment=theirs, problem=Problem.objects.get(slug="aot_compiled_sum"), points=7)
    answer = platform.launch(browser(), ALICE, tamper=in_another_course, custom={"jaxjudge_assignment": "theirs"})
    assert answer.status_code == 302
    assert AssignmentLink.objects.get(assignment=theirs).line_item_url == platform.line_item_url(2)
    run_lti_tasks()

    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0))
    run_lti_tasks()
    # Queued by hand too: the task itself sends nothing for a course they are not a student of.
    from webapp.lti.tasks import send_scores

    send_scores.enqueue(theirs.pk, student.pk)
    run_lti_tasks()

    sent_to = {sent["line_item"] for sent in platform.scores}
    assert sent_to == {platform.line_item_url(1).split("?")[0].removeprefix(platform.base_url)}
    assert not ScorePublication.objects.filter(assignment_link__assignment=theirs).exists()

    # Joined here by the course's invite link, not from that platform course: still nothing
    # goes to it (the platform learns only about people who came from it).
    other.join(student)
    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0))
    send_scores.enqueue(theirs.pk, student.pk)
    run_lti_tasks()
    assert {sent["line_item"] for sent in platform.scores} == sent_to
    assert not ScorePublication.objects.filter(assignment_link__assignment=theirs).exists()


# One roster sync at a time, page by page (attack 8)


def test_instructor_launches_queue_one_roster_sync_at_a_time_and_not_every_launch(canvas):
    linked_course(canvas)
    for _ in range(9):
        assert canvas.launch(browser(), ALICE).status_code == 302
    syncs = DBTaskResult.objects.filter(task_path="webapp.lti.tasks.sync_roster")
    assert syncs.count() == 1  # ten launches, one sync

    assert [result.status for result in run_lti_tasks()] == ["SUCCESSFUL"]
    assert canvas.launch(browser(), ALICE).status_code == 302
    assert syncs.count() == 1  # it just ran: not again for a few minutes

    CourseLink.objects.update(roster_synced_at=timezone.now() - CourseLink.ROSTER_SYNC_EVERY)
    assert canvas.launch(browser(), ALICE).status_code == 302
    assert syncs.count() == 2


def test_a_roster_is_enrolled_a_page_at_a_time(canvas):
    course = linked_course(canvas)
    people_on_roster = [
        Person(f"0000000{number}-aaaa-4bbb-8ccc-dddddddddddd", f"P{number}", "Learner", "", LEARNER)
        for number in range(5)
    ]
    canvas.roster = [roster_member(person) for person in people_on_roster]  # three pages of two
    serve_page = canvas.serve_roster

    def second_page_fails(request: Any, query: dict[str, list[str]], **rest: Any) -> Any:
        if query.get("page", ["0"])[0] != "0":
            return 500, {"Content-Type": "text/plain"}, b"down"
        return serve_page(request=request, query=query, **rest)

    canvas.serve_roster = second_page_fails

    (result,) = run_lti_tasks()

    assert result.status == "FAILED"
    # The first page was enrolled before the second was asked for.
    enrolled = set(course.memberships.filter(role="student").values_list("user__platform_accounts__sub", flat=True))
    assert enrolled == {people_on_roster[0].sub, people_on_roster[1].sub}
    # A failed sync holds up no later one.
    assert CourseLink.objects.get().roster_sync_queued_at is None


# Service URLs on the platform's own hosts (attack 9)


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
    student = signed_in(session)
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


# Records that last (item 5)


def test_a_score_record_outlives_the_assignment_and_the_registration_it_was_sent_through(canvas):
    course, student = launched_student(canvas)
    graded.send(sender=Submission, submission=hand_in(student, "aot_compiled_sum", 1.0))
    run_lti_tasks()

    course.assignments.get().delete()
    LtiDeployment.objects.get(deployment_id=canvas.deployment_id).registration.delete()

    publication = ScorePublication.objects.get()
    assert publication.assignment_link is None and publication.platform_account is None
    assert (publication.score_given, publication.status) == (10.0, ScorePublication.Status.SENT)
    assert publication.line_item_url == canvas.line_item_url(1)
    assert publication.assignment_title.startswith("Week 1: tracing")
    assert publication.platform_user.startswith(SAM.sub) and canvas.client_id in publication.platform_user
