"""Courses: roles, deadlines, extensions, what a hand-in earns under each late policy, the
pages and who may see them, rosters, the invite link and overrides."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import IntegrityError

from webapp.catalog.models import Problem
from webapp.courses.models import (
    Assignment,
    AssignmentProblem,
    Course,
    Extension,
    Invitation,
    Membership,
    Override,
    Regrade,
    RosterError,
    RosterUpload,
    read_roster,
)
from webapp.courses.tasks import enrol_roster
from webapp.submissions.models import Submission

pytestmark = pytest.mark.django_db

RELEASE = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
DUE = datetime(2026, 9, 8, 23, 59, tzinfo=UTC)


@pytest.fixture
def course() -> Course:
    return Course.objects.create(slug="jax-101", title="JAX 101")


@pytest.fixture
def assignment(course: Course, catalog: None) -> Assignment:
    assignment = Assignment.objects.create(course=course, slug="week-1", title="Week 1", release_at=RELEASE, due_at=DUE)
    for position, slug in enumerate(["aot_compiled_sum", "batched_dot"]):
        AssignmentProblem.objects.create(
            assignment=assignment, problem=Problem.objects.get(slug=slug), position=position, points=10
        )
    return assignment


def hand_in(user: User, slug: str, at: datetime, score: float, *, status: str = "graded") -> Submission:
    return Submission.objects.create(
        user=user,
        problem=Problem.objects.get(slug=slug),
        kind=Submission.Kind.SUBMIT,
        code="def f(x):\n    return x\n",
        status=status,
        score=score,
        max_score=100.0,
        handed_in_at=at,
    )


def test_roles_say_who_is_staff_and_who_may_change_the_course(course, django_user_model):
    instructor, ta, learner, outsider = (
        django_user_model.objects.create_user(name) for name in ("grace", "alan", "ada", "eve")
    )
    Membership.objects.create(course=course, user=instructor, role=Membership.Role.INSTRUCTOR)
    Membership.objects.create(course=course, user=ta, role=Membership.Role.TA)
    Membership.objects.create(course=course, user=learner, section="B")
    assert [course.is_staff(u) for u in (instructor, ta, learner, outsider)] == [True, True, False, False]
    assert [course.is_instructor(u) for u in (instructor, ta, learner, outsider)] == [True, False, False, False]
    with pytest.raises(IntegrityError):
        Membership.objects.create(course=course, user=learner, role=Membership.Role.TA)


def test_a_due_time_before_the_release_is_refused(course):
    assignment = Assignment(course=course, slug="w", title="W", release_at=DUE, due_at=RELEASE)
    with pytest.raises(ValidationError, match="after the release"):
        assignment.full_clean()


@pytest.mark.parametrize(
    ("policy", "late_by", "fraction", "note"),
    [
        ("none", timedelta(0), 1.0, ""),
        ("none", timedelta(days=3), 1.0, "late (no penalty)"),
        ("hard_close", timedelta(0), 1.0, ""),
        ("hard_close", timedelta(seconds=1), 0.0, "handed in after the assignment closed: it earns no points"),
        ("penalty_per_day", timedelta(minutes=1), 0.9, "1 day late: 10% off"),
        ("penalty_per_day", timedelta(days=1), 0.9, "1 day late: 10% off"),
        ("penalty_per_day", timedelta(days=1, seconds=1), 0.8, "2 days late: 20% off"),
        ("penalty_per_day", timedelta(days=30), 0.0, "30 days late: 100% off"),
    ],
)
def test_the_late_policy_decides_what_a_hand_in_earns(course, policy, late_by, fraction, note):
    assignment = Assignment(course=course, release_at=RELEASE, due_at=DUE, late_policy=policy)
    credit = assignment.credit(DUE + late_by, DUE)
    assert (credit.fraction, credit.late, credit.note) == pytest.approx((fraction, late_by > timedelta(0), note))


def test_an_extension_moves_one_student_s_due_time_only(assignment, django_user_model):
    extended, other = django_user_model.objects.create_user("ada"), django_user_model.objects.create_user("bob")
    Extension.objects.create(assignment=assignment, user=extended, due_at=DUE + timedelta(days=2), reason="ill")
    assert assignment.due_for(extended) == DUE + timedelta(days=2)
    assert assignment.due_for(other) == DUE
    too_early = Extension(assignment=assignment, user=other, due_at=DUE - timedelta(hours=1), reason="x")
    with pytest.raises(ValidationError, match="after the assignment's own due time"):
        too_early.full_clean()


def test_each_problem_counts_the_best_hand_in_after_the_release_under_the_policy(assignment, django_user_model):
    assignment.late_policy = Assignment.LatePolicy.PENALTY_PER_DAY
    assignment.penalty_percent_per_day = 25
    assignment.save()
    ada = enrol(assignment.course, "ada")  # a member since before the term
    hand_in(ada, "aot_compiled_sum", RELEASE - timedelta(days=1), 100.0)  # practice before the release
    half_on_time = hand_in(ada, "aot_compiled_sum", DUE - timedelta(hours=1), 50.0)
    hand_in(ada, "aot_compiled_sum", DUE + timedelta(hours=5), 100.0)  # full marks, a day late: 75%
    hand_in(ada, "batched_dot", DUE - timedelta(days=1), 100.0, status=Submission.Status.FAILED)  # never graded
    late_full = hand_in(ada, "batched_dot", DUE + timedelta(days=1, hours=1), 100.0)  # 2 days: 50%

    first, second = assignment.problem_scores(ada)
    assert (first.item.problem.slug, first.earned, first.credit.late) == ("aot_compiled_sum", 7.5, True)
    assert first.submission_id != half_on_time.pk
    assert (second.earned, second.submission_id, second.credit.note) == (5.0, late_full.pk, "2 days late: 50% off")
    assert assignment.total_points == 20.0


def test_an_extension_makes_a_late_hand_in_on_time(assignment, django_user_model):
    assignment.late_policy = Assignment.LatePolicy.HARD_CLOSE
    assignment.save()
    ada = enrol(assignment.course, "ada")  # a member since before the term
    hand_in(ada, "batched_dot", DUE + timedelta(hours=3), 100.0)
    assert [score.earned for score in assignment.problem_scores(ada)] == [0.0, 0.0]
    Extension.objects.create(assignment=assignment, user=ada, due_at=DUE + timedelta(days=1), reason="travel")
    scores = assignment.problem_scores(ada)
    assert [score.earned for score in scores] == [0.0, 10.0]
    assert scores[0].submission_id is None and not scores[1].credit.late


def test_a_submission_is_handed_in_when_received_unless_staff_say_otherwise(assignment, django_user_model):
    ada = django_user_model.objects.create_user("ada")
    received = hand_in(ada, "batched_dot", DUE, 100.0)
    received.handed_in_at = None
    assert received.handed_in == received.created_at
    assert hand_in(ada, "batched_dot", DUE, 100.0).handed_in == DUE


def test_staff_grant_an_extension_in_the_admin_and_who_granted_it_is_recorded(assignment, admin_client, admin_user):
    ada = User.objects.create_user("ada")
    response = admin_client.post(
        "/admin/courses/extension/add/",
        {
            "assignment": assignment.pk,
            "user": ada.pk,
            "due_at_0": "2026-09-10",
            "due_at_1": "12:00:00",
            "reason": "a family matter",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    extension = Extension.objects.get()
    assert (extension.user, extension.granted_by) == (ada, admin_user)
    assert assignment.due_for(ada) == datetime(2026, 9, 10, 12, 0, tzinfo=UTC)
    refused = admin_client.post(
        "/admin/courses/extension/add/",
        {
            "assignment": assignment.pk,
            "user": admin_user.pk,
            "due_at_0": "2026-09-01",
            "due_at_1": "00:00:00",
            "reason": "x",
        },
    )
    assert refused.status_code == 200 and "after the assignment" in refused.content.decode()


# -- the pages ----------------------------------------------------------------------------------


@pytest.fixture
def other_course(catalog: None) -> Course:
    other = Course.objects.create(slug="jax-201", title="JAX 201")
    Assignment.objects.create(course=other, slug="final", title="Final", release_at=RELEASE, due_at=DUE)
    return other


def enrol(course: Course, username: str, role: str = Membership.Role.STUDENT) -> User:
    """A member since before the term (``joined_at`` is set when a membership is made): their
    work on the course's assignments from the release on is the course's to read."""
    user = User.objects.create_user(username, password="a-long-password-1")
    membership = Membership.objects.create(course=course, user=user, role=role)
    Membership.objects.filter(pk=membership.pk).update(joined_at=RELEASE - timedelta(days=30))
    return user


def test_a_student_sees_their_standing_with_the_late_mark(client, assignment):
    assignment.late_policy = Assignment.LatePolicy.PENALTY_PER_DAY
    assignment.save()
    ada = enrol(assignment.course, "ada")
    hand_in(ada, "aot_compiled_sum", DUE + timedelta(hours=2), 100.0)
    client.force_login(ada)
    listing = client.get("/courses/").content.decode()
    assert "/courses/jax-101/" in listing
    course_page = client.get("/courses/jax-101/").content.decode()
    assert "/courses/jax-101/week-1/" in course_page and 'datetime="2026-09-08T23:59:00+00:00"' in course_page
    page = client.get("/courses/jax-101/week-1/").content.decode()
    assert "Your score: <strong>9</strong> of 20 points." in page
    assert "late: 1 day late: 10% off" in page


def test_a_student_does_not_see_an_assignment_before_its_release(client, assignment, django_user_model):
    assignment.release_at = datetime(2999, 1, 1, tzinfo=UTC)
    assignment.due_at = datetime(2999, 2, 1, tzinfo=UTC)
    assignment.save()
    ada, ta = enrol(assignment.course, "ada"), enrol(assignment.course, "alan", Membership.Role.TA)
    client.force_login(ada)
    assert "week-1" not in client.get("/courses/jax-101/").content.decode()
    assert client.get("/courses/jax-101/week-1/").status_code == 404
    client.force_login(ta)
    assert client.get("/courses/jax-101/week-1/").status_code == 200


def test_another_course_and_its_assignments_do_not_exist_for_a_student(client, assignment, other_course):
    ada = enrol(assignment.course, "ada")
    client.force_login(ada)
    assert "jax-201" not in client.get("/courses/").content.decode()
    for url in ("/courses/jax-201/", "/courses/jax-201/final/", "/courses/jax-101/final/", "/courses/nope/"):
        assert client.get(url).status_code == 404, url


def test_the_course_pages_need_a_sign_in(client, assignment):
    for url in ("/courses/", "/courses/jax-101/", "/courses/jax-101/week-1/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), url


def gradebook_course(assignment: Assignment) -> tuple[User, User, User]:
    """A TA and two students of sections A and B; ada solves one problem late and half of the
    other on time, bob one on time under an extension."""
    assignment.late_policy = Assignment.LatePolicy.PENALTY_PER_DAY
    assignment.save()
    course = assignment.course
    ta = enrol(course, "alan", Membership.Role.TA)
    ada, bob = enrol(course, "ada"), enrol(course, "=bob")  # a name a spreadsheet would run
    Membership.objects.filter(user=ada).update(section="A")
    Membership.objects.filter(user=bob).update(section="B")
    hand_in(ada, "aot_compiled_sum", DUE + timedelta(hours=2), 100.0)
    hand_in(ada, "batched_dot", DUE - timedelta(days=1), 30.0)
    hand_in(ada, "batched_dot", DUE - timedelta(hours=1), 50.0)
    Extension.objects.create(assignment=assignment, user=bob, due_at=DUE + timedelta(days=3), reason="ill")
    hand_in(bob, "batched_dot", DUE + timedelta(days=2), 100.0)
    return ta, ada, bob


def test_staff_read_the_gradebook_with_late_and_extension_marks_by_section_and_as_csv(client, assignment):
    ta, _, _ = gradebook_course(assignment)
    client.force_login(ta)
    page = client.get("/courses/jax-101/gradebook/").content.decode()
    assert "2 students." in page
    ada_row = page[page.index("<td>ada</td>") : page.index("</tr>", page.index("<td>ada</td>"))]
    assert '>14</a> <span class="late">late</span>' in ada_row and "ext." not in ada_row
    bob_row = page[page.index("<td>=bob</td>") : page.index("</tr>", page.index("<td>=bob</td>"))]
    assert '>10</a> <span class="extended">ext.</span>' in bob_row and "late</span>" not in bob_row
    only_a = client.get("/courses/jax-101/gradebook/?section=A").content.decode()
    assert "<td>ada</td>" in only_a and "=bob" not in only_a
    csv_text = client.get("/courses/jax-101/gradebook/?format=csv").content.decode()
    assert csv_text.splitlines() == [
        "username,email,name,section,week-1,week-1 late,week-1 extension,total",
        "'=bob,,,B,10,,extension,10",
        "ada,,,A,14,late,,14",
    ]
    standing = client.get("/courses/jax-101/week-1/?student=ada").content.decode()
    assert "The standing of <strong>ada</strong>" in standing and "Score: <strong>14</strong>" in standing


def test_students_get_no_gradebook_and_no_one_else_s_standing(client, assignment, other_course):
    ta, ada, _ = gradebook_course(assignment)
    client.force_login(ada)
    assert client.get("/courses/jax-101/gradebook/").status_code == 403
    assert client.get("/courses/jax-201/gradebook/").status_code == 404
    page = client.get("/courses/jax-101/week-1/?student=%3Dbob").content.decode()
    assert "Your score: <strong>14</strong>" in page and "=bob" not in page
    client.force_login(ta)  # staff of one course are nobody in another
    assert client.get("/courses/jax-201/gradebook/").status_code == 404
    assert client.get("/courses/jax-101/week-1/?student=nobody").status_code == 404


# -- rosters ------------------------------------------------------------------------------------


ROSTER = "\ufeffUsername,Email,Name,Section\nada,ada@example.org,Ada Lovelace,A\n\nbob,bob@example.org,Bob,B\n"


def test_a_roster_is_read_with_its_header_in_any_order_and_case():
    rows = read_roster("section,EMAIL,USERNAME\nB,bob@example.org,bob\n")
    assert [(r.line, r.username, r.email, r.section) for r in rows] == [(2, "bob", "bob@example.org", "B")]
    assert [r.name for r in read_roster(ROSTER)] == ["Ada Lovelace", "Bob"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("email,name\nx@example.org,X\n", "line 1: the header must name a username and an email column"),
        ("username,email,role\nada,a@example.org,ta\n", "line 1: unknown column 'role'"),
        ("username,email\nada,a@example.org\nbad name,b@example.org\n", "line 3: 'bad name' is not a username"),
        ("username,email\nada,not-an-address\n", "line 2: 'not-an-address' is not an email address"),
        ("username,email\nada,a@example.org\nada,b@example.org\n", "line 3: ada is listed twice (first on line 2)"),
        ("username,email\nada,a@example.org\nbob,A@example.org\n", "line 3: A@example.org is listed twice"),
        ("username,email\nada,\n", "line 2: ada has no email (the invitation to join is sent there)"),
        (
            "username,email,section\nada,a@example.org," + "x" * 51 + "\n",
            "line 2: a name may have 150 characters, a section 50",
        ),
    ],
)
def test_a_bad_roster_names_its_line_and_what_is_wrong(text, message):
    with pytest.raises(RosterError, match=re.escape(message)):
        read_roster(text)


def test_enrolling_invites_every_row_and_enrols_nobody_without_consent(course, mailoutbox):
    ta = enrol(course, "bob", Membership.Role.TA)
    existing = User.objects.create_user("ada", password="a-long-password-1")
    first = course.enrol(read_roster(ROSTER), site_url="http://testserver")
    assert (first.status, first.accounts_made, first.invited, first.listed_before) == ("done", 0, 2, 0)
    assert existing.check_password("a-long-password-1")  # an existing account is left as it was
    assert course.membership_of(existing) is None  # until its owner accepts
    moved = course.enrol(read_roster("username,email,section\nada,ada@example.org,C\ncyd,cyd@example.org,A\n"))
    assert (moved.accounts_made, moved.invited, moved.listed_before) == (1, 0, 1)
    cyd = User.objects.get(username="cyd")
    assert not cyd.has_usable_password() and cyd.email == "cyd@example.org"
    assert course.membership_of(cyd) is None  # until its activation link is opened
    assert course.membership_of(ta).role == Membership.Role.TA
    assert dict(course.invitations.values_list("username", "section")) == {"ada": "C", "bob": "B", "cyd": "A"}
    assert sorted(m.to[0] for m in mailoutbox) == ["ada@example.org", "bob@example.org", "cyd@example.org"]


def test_manage_py_enrol_reads_a_file_and_says_what_it_did(course, tmp_path, mailoutbox):
    roster_file = tmp_path / "roster.csv"
    roster_file.write_text(ROSTER, encoding="utf-8")
    out = io.StringIO()
    call_command("enrol", "jax-101", str(roster_file), "--site-url", "https://judge.example.edu", stdout=out)
    assert out.getvalue().startswith("jax-101: 2 rows: 2 accounts made (each emailed a link to activate it), 0 invited")
    assert "https://judge.example.edu/courses/join/invited/" in mailoutbox[0].body
    roster_file.write_text("username,email\nbad name,x@example.org\n")
    with pytest.raises(CommandError, match="line 2: 'bad name' is not a username"):
        call_command("enrol", "jax-101", str(roster_file))
    with pytest.raises(CommandError, match="no course 'nope' \\(courses: jax-101\\)"):
        call_command("enrol", "nope", str(roster_file))


def test_the_instructor_uploads_a_roster_and_a_bad_one_invites_nobody(client, course, mailoutbox):
    instructor = enrol(course, "grace", Membership.Role.INSTRUCTOR)
    ta = enrol(course, "alan", Membership.Role.TA)
    client.force_login(ta)
    assert client.get("/courses/jax-101/roster/").status_code == 403
    client.force_login(instructor)
    bad = client.post(
        "/courses/jax-101/roster/",
        {"roster": SimpleUploadedFile("r.csv", b"username,email\nada,a@x.org\nada,b@x.org\n")},
    )
    assert bad.status_code == 400 and "line 3: ada is listed twice" in bad.content.decode()
    assert not Invitation.objects.exists() and not RosterUpload.objects.exists()
    good = client.post("/courses/jax-101/roster/", {"roster": SimpleUploadedFile("r.csv", ROSTER.encode())})
    upload = RosterUpload.objects.get()
    assert good.status_code == 302 and good["Location"] == f"/courses/jax-101/roster/#upload-{upload.pk}"
    assert upload.status == "queued" and not Invitation.objects.exists()  # the courses' worker invites them
    enrol_roster.call(upload.pk)
    page = client.get("/courses/jax-101/roster/").content.decode()
    assert "done: 2 accounts made to be activated" in page and "ada@example.org" in page
    assert course.memberships.filter(role=Membership.Role.STUDENT).count() == 0  # until they accept
    assert len(mailoutbox) == 2


def test_the_invite_link_lets_a_signed_in_visitor_join_as_a_student(client, course):
    eve = User.objects.create_user("eve", password="a-long-password-1")
    url = f"/courses/join/{course.invite_code}/"
    assert client.get(url).status_code == 302  # a sign-in first
    client.force_login(eve)
    assert "Join the course" in client.get(url).content.decode()
    assert client.get("/courses/join/not-the-code/").status_code == 404
    assert client.get("/courses/jax-101/").status_code == 404  # not yet a member
    response = client.post(url)
    assert response.status_code == 302 and response["Location"] == "/courses/jax-101/"
    assert course.membership_of(eve).role == Membership.Role.STUDENT
    assert client.get("/courses/jax-101/").status_code == 200


# -- overrides ----------------------------------------------------------------------------------


def test_an_override_replaces_the_points_and_the_latest_counts(assignment, client):
    ta, ada, _ = gradebook_course(assignment)
    item = assignment.items.get(problem__slug="batched_dot")
    Override.objects.create(item=item, user=ada, points=8, reason="regraded by hand", created_by=ta)
    Override.objects.create(item=item, user=ada, points=7, reason="a second look", created_by=ta)
    first, second = assignment.problem_scores(ada)
    assert (first.earned, first.override_reason) == (9.0, "")
    assert (second.earned, second.override_reason) == (7.0, "a second look")
    client.force_login(ta)
    page = client.get("/courses/jax-101/gradebook/").content.decode()
    ada_row = page[page.index("<td>ada</td>") : page.index("</tr>", page.index("<td>ada</td>"))]
    assert ">16</a>" in ada_row and '<span class="overridden">override</span>' in ada_row
    client.force_login(ada)
    assert "points set by staff: a second look" in client.get("/courses/jax-101/week-1/").content.decode()


@pytest.mark.parametrize(
    ("points", "reason", "message"),
    [(11, "too generous", "At most the problem"), (5, "  ", "Say why the points are set by hand.")],
)
def test_an_override_needs_a_reason_and_stays_within_the_problem_s_points(assignment, points, reason, message):
    ada = User.objects.create_user("ada")
    override = Override(item=assignment.items.first(), user=ada, points=points, reason=reason)
    with pytest.raises(ValidationError, match=message):
        override.full_clean()


def test_overrides_are_made_in_the_admin_by_whoever_is_signed_in_and_never_changed(
    assignment, admin_client, admin_user
):
    ada = User.objects.create_user("ada")
    item = assignment.items.first()
    response = admin_client.post(
        "/admin/courses/override/add/",
        {"item": item.pk, "user": ada.pk, "points": "4", "reason": "a late medical note"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    override = Override.objects.get()
    assert (override.created_by, override.points) == (admin_user, 4)
    admin_client.post(
        f"/admin/courses/override/{override.pk}/change/",
        {"item": item.pk, "user": ada.pk, "points": "10", "reason": "changed"},
    )
    admin_client.post(f"/admin/courses/override/{override.pk}/delete/", {"post": "yes"})
    override.refresh_from_db()
    assert (override.points, override.reason) == (4, "a late medical note")


# -- the gradebook by problem, staff reading a student's work, regrades ----------------------------


def test_the_gradebook_shows_one_assignment_problem_by_problem_on_demand(client, assignment):
    ta, ada, _ = gradebook_course(assignment)
    client.force_login(ta)
    plain = client.get("/courses/jax-101/gradebook/").content.decode()
    assert "problem-column" not in plain
    page = client.get("/courses/jax-101/gradebook/?assignment=week-1").content.decode()
    assert page.count('<th class="problem-column"') == 2 and "1. aot_\u200bcompiled_\u200bsum" in page
    ada_row = page[page.index("<td>ada</td>") : page.index("</tr>", page.index("<td>ada</td>"))]
    late_one = Submission.objects.get(user=ada, problem__slug="aot_compiled_sum")
    assert f'/courses/jax-101/submissions/{late_one.pk}/">9</a> <span class="late">late</span>' in ada_row
    best = Submission.objects.filter(user=ada, problem__slug="batched_dot").order_by("-score").first()
    assert best is not None
    assert f'data-label="batched_dot"><a href="/courses/jax-101/submissions/{best.pk}/">5</a></td>' in ada_row
    csv_text = client.get("/courses/jax-101/gradebook/?assignment=week-1&format=csv").content.decode()
    assert csv_text.splitlines()[0].endswith(",week-1/aot_compiled_sum,week-1/batched_dot,total")
    assert csv_text.splitlines()[2] == "ada,,,A,14,late,,9,5,14"
    assert "problem-column" not in client.get("/courses/jax-101/gradebook/?assignment=nope").content.decode()


def test_a_ta_reads_a_student_s_submission_through_the_course_and_nothing_else(client, assignment, other_course):
    ta, ada, bob = gradebook_course(assignment)
    late_one = Submission.objects.get(user=ada, problem__slug="aot_compiled_sum")
    late_one.report = {"message": "", "tests": [], "hidden_output": "printed under the hidden tests"}
    late_one.save()
    elsewhere = hand_in(ada, "compile_for", DUE, 100.0)  # a problem of no assignment of the course
    practice = hand_in(ada, "batched_dot", RELEASE - timedelta(days=30), 100.0)  # before the release
    client.force_login(ta)
    standing = client.get("/courses/jax-101/week-1/?student=ada").content.decode()
    assert f'href="/courses/jax-101/submissions/{late_one.pk}/"' in standing
    page = client.get(f"/courses/jax-101/submissions/{late_one.pk}/").content.decode()
    assert "By <strong>ada</strong>" in page
    assert "printed under the hidden tests" not in page  # the hidden inputs are the site's staff's alone
    assert "Regrade this submission" in page
    assert client.get(f"/courses/jax-101/submissions/{elsewhere.pk}/").status_code == 404
    assert client.get(f"/courses/jax-101/submissions/{practice.pk}/").status_code == 404
    assert client.get(f"/courses/jax-201/submissions/{late_one.pk}/").status_code == 404
    assert client.get(f"/submissions/{late_one.pk}/").status_code == 404  # the site's own page: owner and site staff
    client.force_login(bob)  # a student reads no one else's work
    assert client.get(f"/courses/jax-101/submissions/{late_one.pk}/").status_code == 403


def test_staff_regrade_an_assignment_a_problem_or_a_submission_and_see_how_far_it_got(client, assignment):
    ta, ada, bob = gradebook_course(assignment)
    before_release = hand_in(ada, "batched_dot", RELEASE - timedelta(days=1), 100.0)
    run = hand_in(ada, "batched_dot", DUE, 100.0)
    Submission.objects.filter(pk=run.pk).update(kind=Submission.Kind.RUN)
    staff_work = hand_in(ta, "batched_dot", DUE, 100.0)
    withdrawn = hand_in(bob, "aot_compiled_sum", DUE, 0.0, status=Submission.Status.CANCELLED)
    counted = set(
        Submission.objects.filter(kind=Submission.Kind.SUBMIT, user__in=[ada, bob])
        .exclude(pk__in=[before_release.pk, withdrawn.pk])
        .values_list("pk", flat=True)
    )
    client.force_login(ta)
    response = client.post("/courses/jax-101/regrade/", {"target": "week-1"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 202
    regrade = Regrade.objects.get(pk=response.json()["id"])
    assert set(regrade.submission_ids) == counted and regrade.requested_by == ta
    assert response.json() == {"id": regrade.pk, "scope": "Week 1", "ended": 0, "total": len(counted)}
    queued = Submission.objects.filter(pk__in=counted)
    assert set(queued.values_list("status", flat=True)) == {Submission.Status.QUEUED}
    for untouched in (before_release, run, staff_work, withdrawn):
        assert Submission.objects.get(pk=untouched.pk).status == untouched.status  # not queued again
    queued.filter(problem__slug="batched_dot").update(status=Submission.Status.GRADED, score=100.0)
    progress = client.get(f"/courses/jax-101/regrades/{regrade.pk}/").json()
    assert progress["ended"] == len(counted) - 1 and progress["total"] == len(counted)
    page = client.get("/courses/jax-101/gradebook/").content.decode()
    assert f"{len(counted) - 1} of {len(counted)}</span> graded again" in page and "by alan" in page

    by_problem = client.post("/courses/jax-101/regrade/", {"target": "week-1/batched_dot"})
    assert by_problem.status_code == 302 and by_problem["Location"] == "/courses/jax-101/gradebook/#regrades"
    latest = Regrade.objects.latest("requested_at", "id")
    assert latest.scope == f"Week 1: {Problem.objects.get(slug='batched_dot').title}"
    assert set(latest.submission_ids) == set(queued.filter(problem__slug="batched_dot").values_list("pk", flat=True))

    late_one = Submission.objects.get(user=ada, problem__slug="aot_compiled_sum")
    Submission.objects.filter(pk=late_one.pk).update(status=Submission.Status.GRADED)
    one = client.post("/courses/jax-101/regrade/", {"target": "week-1", "submission": late_one.pk})
    assert one.status_code == 302 and Regrade.objects.latest("requested_at", "id").submission_ids == [late_one.pk]

    for refused in ({"target": "nope"}, {"target": "week-1/compile_for"}, {"target": "week-1", "submission": "x"}):
        assert client.post("/courses/jax-101/regrade/", refused).status_code == 404, refused
    client.force_login(ada)
    assert client.post("/courses/jax-101/regrade/", {"target": "week-1"}).status_code == 403
    assert client.get(f"/courses/jax-101/regrades/{regrade.pk}/").status_code == 403
    assert client.get("/courses/jax-101/regrade/").status_code in (403, 405)


def test_an_assignment_may_not_take_the_name_of_a_course_page(course):
    assignment = Assignment(course=course, slug="gradebook", title="Gradebook", release_at=RELEASE, due_at=DUE)
    with pytest.raises(ValidationError, match="names one of the course's own pages"):
        assignment.full_clean()


def test_every_course_view_that_takes_an_id_is_closed_to_another_course_s_student(client, assignment, other_course):
    """Each URL of the courses app, filled with the ids of a course the student is not in (and
    of one they are in, where the view is staff's): a 403 or a 404, never the page."""
    from django.urls import URLPattern

    from webapp.courses import urls

    ada = enrol(assignment.course, "ada")
    outsider = enrol(other_course, "eve")
    theirs = hand_in(outsider, "aot_compiled_sum", DUE, 100.0)
    mine = hand_in(ada, "aot_compiled_sum", DUE, 100.0)
    regrade = Regrade.objects.create(course=other_course, scope="Final", submission_ids=[theirs.pk])
    own_regrade = Regrade.objects.create(course=assignment.course, scope="Week 1", submission_ids=[mine.pk])
    upload = RosterUpload.objects.create(course=other_course, status="failed")
    own_upload = RosterUpload.objects.create(course=assignment.course, status="failed")
    invitation = Invitation.objects.create(course=other_course, username="x", email="x@example.org", expires_at=DUE)
    own_invitation = Invitation.objects.create(
        course=assignment.course, username="y", email="y@example.org", expires_at=DUE
    )
    filled = {
        "detail": ["/courses/jax-201/"],
        "gradebook": ["/courses/jax-201/gradebook/", "/courses/jax-101/gradebook/"],
        "roster": ["/courses/jax-201/roster/", "/courses/jax-101/roster/"],
        "regrade": ["/courses/jax-201/regrade/", "/courses/jax-101/regrade/"],
        "regrade_progress": [
            f"/courses/jax-201/regrades/{regrade.pk}/",
            f"/courses/jax-101/regrades/{own_regrade.pk}/",
        ],
        "submission": [f"/courses/jax-201/submissions/{theirs.pk}/", f"/courses/jax-101/submissions/{mine.pk}/"],
        "assignment": ["/courses/jax-201/final/"],
        "roster_upload": [
            f"/courses/jax-201/roster/uploads/{upload.pk}/",
            f"/courses/jax-101/roster/uploads/{own_upload.pk}/",
        ],
        "roster_upload_resume": [
            f"/courses/jax-201/roster/uploads/{upload.pk}/resume/",
            f"/courses/jax-101/roster/uploads/{own_upload.pk}/resume/",
        ],
        "invitation_resend": [
            f"/courses/jax-201/roster/invitations/{invitation.pk}/resend/",
            f"/courses/jax-101/roster/invitations/{own_invitation.pk}/resend/",
        ],
    }
    takes_an_id = [p.name for p in urls.urlpatterns if isinstance(p, URLPattern) and p.pattern.converters]
    # join and invitation take a secret, not an id: a wrong one is a 404 or a 410 page of its own.
    assert set(takes_an_id) - {"join", "invitation"} == set(filled), "a new course view needs its case here"
    client.force_login(ada)
    for name, paths in filled.items():
        for path in paths:
            for method in (client.get, client.post):
                assert method(path).status_code in (403, 404, 405), (name, path, method)
    assert client.get("/courses/join/not-a-code/").status_code == 404
    assert client.get("/courses/join/invited/not-a-token/").status_code == 410
    # The site's own views of a submission, for another course's student's work: none of it.
    from webapp.submissions import urls as submission_urls

    by_id = [p.name for p in submission_urls.urlpatterns if isinstance(p, URLPattern) and "pk" in p.pattern.converters]
    assert set(by_id) == {"detail", "status", "cancel"}, "a new submission view needs its case here"
    for path in (f"/submissions/{theirs.pk}/", f"/submissions/{theirs.pk}/status/"):
        assert client.get(path).status_code == 404, path
    assert client.post(f"/submissions/{theirs.pk}/cancel/").status_code == 404


# -- instructors in the admin ---------------------------------------------------------------------


def test_an_instructor_creates_a_course_in_the_admin_and_sees_only_the_courses_they_teach(
    client, assignment, other_course
):
    grace = User.objects.create_user("grace", password="a-long-password-1")
    call_command("instructor", "grace", stdout=io.StringIO())
    grace.refresh_from_db()
    assert grace.is_staff and not grace.is_superuser
    client.force_login(grace)
    made = client.post(
        "/admin/courses/course/add/", {"title": "JAX 301", "slug": "jax-301", "early_solutions": "hidden", **NO_MEMBERS}
    )
    assert made.status_code == 302, made.content.decode()[:3000]
    mine = Course.objects.get(slug="jax-301")
    assert mine.is_instructor(grace)
    listing = client.get("/admin/courses/course/").content.decode()
    assert "JAX 301" in listing and "JAX 101" not in listing and "JAX 201" not in listing
    theirs = assignment.course
    assert client.get(f"/admin/courses/course/{theirs.pk}/change/").status_code in (302, 404)
    assert client.get(f"/admin/courses/assignment/{assignment.pk}/change/").status_code in (302, 404)
    form = client.get("/admin/courses/assignment/add/").content.decode()
    course_choice = form[form.index('name="course"') : form.index("</select>", form.index('name="course"'))]
    assert f'<option value="{mine.pk}">' in course_choice and f'<option value="{theirs.pk}">' not in course_choice
    refused = client.post(
        "/admin/courses/assignment/add/",
        {
            "course": theirs.pk,
            "slug": "sneaky",
            "title": "Sneaky",
            "release_at_0": "2026-09-01",
            "release_at_1": "09:00:00",
            "due_at_0": "2026-09-08",
            "due_at_1": "09:00:00",
            "late_policy": "none",
            "penalty_percent_per_day": "10",
            **NO_PROBLEMS,
        },
    )
    assert refused.status_code == 200 and not Assignment.objects.filter(slug="sneaky").exists()
    # Extensions and overrides name students of their own courses only.
    ada = enrol(mine, "ada")
    enrol(theirs, "eve")
    extension_form = client.get("/admin/courses/extension/add/").content.decode()
    assert f'<option value="{ada.pk}">ada</option>' in extension_form and ">eve<" not in extension_form
    assert client.get("/admin/auth/user/").status_code == 403  # no browsing the site's accounts


def test_the_course_page_leads_its_instructor_alone_to_the_admin(client, assignment):
    course = assignment.course
    for username, role, leads in (
        ("grace", Membership.Role.INSTRUCTOR, True),
        ("alan", Membership.Role.TA, False),
        ("ada", Membership.Role.STUDENT, False),
    ):
        client.force_login(enrol(course, username, role))
        page = client.get("/courses/jax-101/").content.decode()
        assert (f'href="/admin/courses/assignment/add/?course={course.pk}"' in page) == leads, username
        assert (f'href="/admin/courses/assignment/{assignment.pk}/change/"' in page) == leads, username


def test_manage_py_instructor_names_an_unknown_account():
    with pytest.raises(CommandError, match="no account 'nobody'"):
        call_command("instructor", "nobody")


NO_MEMBERS = {
    "memberships-TOTAL_FORMS": "0",
    "memberships-INITIAL_FORMS": "0",
    "memberships-MIN_NUM_FORMS": "0",
    "memberships-MAX_NUM_FORMS": "1000",
}
NO_PROBLEMS = {
    "items-TOTAL_FORMS": "0",
    "items-INITIAL_FORMS": "0",
    "items-MIN_NUM_FORMS": "0",
    "items-MAX_NUM_FORMS": "1000",
}
