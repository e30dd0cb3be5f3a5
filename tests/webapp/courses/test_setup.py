"""A course set up on the site by its instructors (``webapp/courses/setup.py``), never in the
admin: the course, an assignment and its problems picked from the catalog with times typed in
the instructor's own zone, a student's extension and override from their row of the gradebook,
and a regrade confirmed with the number of Submits it queues."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.webapp.support.course_week import DUE, RELEASE, hand_in
from tests.webapp.support.people import PASSWORD, signed_in
from webapp.accounts.models import Profile
from webapp.catalog.models import Problem
from webapp.courses.instructors import make_instructor
from webapp.courses.models import Assignment, AssignmentProblem, Course, Extension, Membership, Override, Regrade

pytestmark = pytest.mark.django_db

THREE = ("batched_dot", "jit_once", "aot_compiled_sum")


def page_of(response: Any) -> str:
    return response.content.decode()


def assignment_form(problems: dict[str, tuple[str, str]], **fields: str) -> dict[str, Any]:
    """What the assignment form sends: its fields, and for each problem picked (by slug) its
    points and position, as typed."""
    data: dict[str, Any] = {
        "title": "Week 2",
        "slug": "",
        "release_at": "2026-11-20T09:00",
        "due_at": "2026-11-28T23:59",
        "late_policy": Assignment.LatePolicy.PENALTY_PER_DAY,
        "penalty_percent_per_day": "10",
        "grace_minutes": "5",
        **fields,
        "problem": [],
    }
    for slug, (points, position) in problems.items():
        pk = Problem.objects.get(slug=slug).pk
        data["problem"].append(str(pk))
        data[f"points-{pk}"], data[f"position-{pk}"] = points, position
    return data


def order_of(assignment: Assignment) -> list[tuple[str, int, float]]:
    return [(item.problem.slug, item.position, float(item.points)) for item in assignment.items.all()]


# -- the course ---------------------------------------------------------------------------------


def test_an_account_made_instructor_signs_in_to_create_its_first_course_and_teaches_it(client: Client, catalog):
    grace = User.objects.create_user("grace", password=PASSWORD)
    make_instructor(grace)
    signed = client.post("/accounts/login/", {"username": "grace", "password": PASSWORD})
    assert signed["Location"] == "/courses/"  # not the catalog: the page that offers to create a course
    listing = page_of(client.get("/courses/"))
    assert 'href="/courses/new/">Create your first course</a>' in listing

    form = page_of(client.get("/courses/new/"))
    assert 'name="title"' in form and "/admin/" not in form
    made = client.post("/courses/new/", {"title": "JAX in practice", "slug": "", "early_solutions": "hidden"})
    assert made["Location"] == "/courses/jax-in-practice/"  # the slug made from the title
    course = Course.objects.get(slug="jax-in-practice")
    assert course.is_instructor(grace) and course.memberships.count() == 1
    page = page_of(client.get(made["Location"]))
    assert "JAX in practice is created and you are its instructor" in page
    assert 'href="/courses/jax-in-practice/assignments/new/">Add an assignment</a>' in page
    assert "/admin/" not in page
    assert "Create your first course" not in page_of(client.get("/courses/"))
    assert 'href="/courses/new/">Create a course</a>' in page_of(client.get("/courses/"))

    # With a course, signing in goes where it always went; a page asked for still wins.
    client.post("/accounts/logout/")
    assert client.post("/accounts/login/", {"username": "grace", "password": PASSWORD})["Location"] == "/"


def test_a_page_asked_for_wins_over_the_courses_page_and_other_accounts_land_on_the_catalog(client: Client):
    grace = User.objects.create_user("grace", password=PASSWORD)
    make_instructor(grace)
    wanted = "/progress/"
    signed = client.post("/accounts/login/", {"username": "grace", "password": PASSWORD, "next": wanted})
    assert signed["Location"] == wanted
    client.post("/accounts/logout/")
    User.objects.create_user("ada", password=PASSWORD)
    assert client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})["Location"] == "/"
    listing = page_of(client.get("/courses/"))
    assert "You are in no course yet" in listing and "/courses/new/" not in listing


def test_a_course_s_slug_is_refused_when_taken_or_a_page_s_and_nothing_is_made(client: Client, course: Course):
    grace = User.objects.create_user("grace", password=PASSWORD)
    make_instructor(grace)
    signed_in(grace, client)
    for slug, message in (("jax-101", "Another course has this slug"), ("new", "names one of the site&#x27;s own")):
        response = client.post("/courses/new/", {"title": "Another", "slug": slug, "early_solutions": "hidden"})
        assert response.status_code == 400 and message in page_of(response), slug
    assert Course.objects.count() == 1 and not Membership.objects.filter(user=grace).exists()


def test_the_instructors_edit_their_course(client: Client, course: Course, owner: User):
    signed_in(owner, client)
    form = page_of(client.get("/courses/jax-101/edit/"))
    assert 'value="JAX 101"' in form
    saved = client.post(
        "/courses/jax-101/edit/",
        {"title": "JAX 101", "slug": "jax-101", "description": "Tracing to export.", "early_solutions": "marked"},
    )
    assert saved["Location"] == "/courses/jax-101/"
    course.refresh_from_db()
    assert (course.description, course.early_solutions) == (
        "Tracing to export.",
        Course.EarlySolutions.SHOWN_AND_MARKED,
    )


# -- an assignment and its problems -------------------------------------------------------------


def test_an_assignment_of_three_problems_typed_in_paris_time_with_a_grace_period(
    client: Client, catalog, course: Course, owner: User
):
    Profile.set_time_zone(owner, "Europe/Paris")
    signed_in(owner, client)
    form = page_of(client.get("/courses/jax-101/assignments/new/"))
    assert "Released (Europe/Paris)" in form and "Due (Europe/Paris)" in form
    assert 'type="datetime-local"' in form
    # The picker: the catalog by section, each problem with its slug, difficulty and tags.
    assert form.count('name="problem"') == Problem.objects.count()
    jit_once = Problem.objects.get(slug="jit_once")
    assert f"<code>{jit_once.slug}</code>" in form and f'data-difficulty="{jit_once.difficulty}"' in form
    assert '<span class="tag">' in form and "picker-section" in form

    # Picked in the catalog's order, ordered by the positions typed: 2, 3, 1.
    picked = {"batched_dot": ("10", "2"), "jit_once": ("20", "3"), "aot_compiled_sum": ("5.5", "1")}
    saved = client.post("/courses/jax-101/assignments/new/", assignment_form(picked))
    assert saved.status_code == 302 and saved["Location"] == "/courses/jax-101/"
    week = Assignment.objects.get(course=course, slug="week-2")
    # 23:59 in Paris in November (CET, UTC+1) is 22:59 UTC.
    assert week.due_at == datetime(2026, 11, 28, 22, 59, tzinfo=UTC)
    assert week.release_at == datetime(2026, 11, 20, 8, 0, tzinfo=UTC)
    assert (week.grace_minutes, week.late_policy, week.penalty_percent_per_day) == (5, "penalty_per_day", 10)
    assert order_of(week) == [("aot_compiled_sum", 0, 5.5), ("batched_dot", 1, 10.0), ("jit_once", 2, 20.0)]
    assert "Week 2 is saved, with 3 problems." in page_of(client.get("/courses/jax-101/"))

    # Edited: read back in Paris time, one problem out, the others the other way round.
    edit = page_of(client.get("/courses/jax-101/week-2/edit/"))
    assert 'value="2026-11-28T23:59"' in edit and 'value="2026-11-20T09:00"' in edit
    kept = {item.problem.slug: item.pk for item in week.items.all()}
    picked = {"jit_once": ("20", "1"), "aot_compiled_sum": ("8", "2")}
    edited = client.post("/courses/jax-101/week-2/edit/", assignment_form(picked, slug="week-2"))
    assert edited.status_code == 302
    assert order_of(week) == [("jit_once", 0, 20.0), ("aot_compiled_sum", 1, 8.0)]
    # A problem kept keeps its row, and so whatever points at it.
    assert {item.problem.slug: item.pk for item in week.items.all()} == {
        slug: pk for slug, pk in kept.items() if slug != "batched_dot"
    }


def test_positions_left_empty_come_after_the_others_in_the_catalog_s_order(client: Client, catalog, course, owner):
    signed_in(owner, client)
    picked = {"batched_dot": ("10", ""), "jit_once": ("10", "1"), "aot_compiled_sum": ("10", "")}
    assert client.post("/courses/jax-101/assignments/new/", assignment_form(picked)).status_code == 302
    catalog_order = [problem.slug for problem in Problem.objects.filter(slug__in=["batched_dot", "aot_compiled_sum"])]
    assert [slug for slug, _, _ in order_of(Assignment.objects.get(slug="week-2"))] == ["jit_once", *catalog_order]


@pytest.mark.parametrize(
    ("fields", "problems", "message"),
    [
        ({"due_at": "2026-11-19T09:00"}, {"jit_once": ("10", "1")}, "The due time must come after the release time."),
        ({"slug": "gradebook"}, {"jit_once": ("10", "1")}, "&#x27;gradebook&#x27; names one of the course&#x27;s own"),
        ({"slug": "week-1"}, {"jit_once": ("10", "1")}, "Another assignment of this course has this slug"),
        ({"due_at": "tomorrow"}, {"jit_once": ("10", "1")}, "Enter a valid date/time."),
        ({}, {}, "Pick at least one problem."),
        ({}, {"jit_once": ("-1", "1")}, "jit_once: points: Ensure this value is greater than or equal to 0."),
        ({}, {"jit_once": ("10", "first")}, "jit_once: position: Enter a whole number."),
    ],
)
def test_a_bad_assignment_names_what_is_wrong_and_saves_nothing(
    client: Client, assignment: Assignment, owner: User, fields, problems, message
):
    signed_in(owner, client)
    before = (Assignment.objects.count(), AssignmentProblem.objects.count())
    response = client.post("/courses/jax-101/assignments/new/", assignment_form(problems, **fields))
    assert response.status_code == 400
    page = page_of(response)
    assert message in page and "Nothing was saved" in page
    assert (Assignment.objects.count(), AssignmentProblem.objects.count()) == before
    # What was typed is shown again, the picked problems still ticked.
    for slug in problems:
        assert (
            f'value="{Problem.objects.get(slug=slug).pk}" id="pick-{Problem.objects.get(slug=slug).pk}" checked' in page
        )


def test_a_problem_with_overrides_stays_in_its_assignment_and_keeps_their_points(
    client: Client, assignment: Assignment, owner: User, course_student: User
):
    item = assignment.items.get(problem__slug="batched_dot")
    Override.objects.create(item=item, user=course_student, points=8, reason="by hand", created_by=owner)
    signed_in(owner, client)
    fields = {"title": "Week 1", "slug": "week-1", "release_at": "2026-09-01T09:00", "due_at": "2026-09-08T23:59"}
    dropped = client.post("/courses/jax-101/week-1/edit/", assignment_form({"aot_compiled_sum": ("10", "1")}, **fields))
    assert dropped.status_code == 400
    assert "(batched_dot) has points set by hand for 1 student: it stays in the assignment." in page_of(dropped)
    lowered = client.post(
        "/courses/jax-101/week-1/edit/",
        assignment_form({"aot_compiled_sum": ("10", "1"), "batched_dot": ("5", "2")}, **fields),
    )
    assert lowered.status_code == 400 and "(batched_dot) is worth at least 8 points" in page_of(lowered)
    assert order_of(assignment) == [("aot_compiled_sum", 0, 10.0), ("batched_dot", 1, 10.0)]


# -- who reaches the set-up pages ---------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/courses/jax-101/edit/",
        "/courses/jax-101/assignments/new/",
        "/courses/jax-101/week-1/edit/",
        "/courses/jax-101/students/ada/extension/",
        "/courses/jax-101/students/ada/override/",
    ],
)
def test_only_the_course_s_instructors_reach_its_set_up(assignment, owner, ta, course_student, peer, outsider, path):
    assert signed_in(owner).get(path).status_code == 200
    for member in (ta, course_student):  # in the course: refused
        assert signed_in(member).get(path).status_code == 403, member
        assert signed_in(member).post(path, {"title": "x"}).status_code == 403, member
    for stranger in (peer, outsider):  # not in it: no such course
        assert signed_in(stranger).get(path).status_code == 404, stranger
    assert "/accounts/login/" in Client().get(path)["Location"]


def test_creating_courses_is_for_the_accounts_the_site_lets(client: Client, owner: User, ta: User):
    assert signed_in(ta, client).get("/courses/new/").status_code == 403  # a course's TA or instructor alone is not
    assert signed_in(owner, client).get("/courses/new/").status_code == 403
    assert client.post("/courses/new/", {"title": "Mine", "early_solutions": "hidden"}).status_code == 403
    assert not Course.objects.filter(title="Mine").exists()
    make_instructor(owner)
    assert client.get("/courses/new/").status_code == 200


def test_extensions_and_overrides_are_for_the_course_s_students_only(assignment, owner, ta):
    client = signed_in(owner)
    assert client.get("/courses/jax-101/students/alan/extension/").status_code == 404  # the TA
    assert client.get("/courses/jax-101/students/grace/override/").status_code == 404  # herself
    assert client.get("/courses/jax-101/students/nobody/override/").status_code == 404


# -- a student's extension and override, from the gradebook -------------------------------------


def test_an_extension_from_the_gradebook_s_row_replaces_the_student_s_own(client: Client, assignment, gradebook, owner):
    _, ada, bob = gradebook
    Profile.set_time_zone(owner, "Europe/Paris")
    signed_in(owner, client)
    book = page_of(client.get("/courses/jax-101/gradebook/?assignment=week-1"))
    link = "/courses/jax-101/students/ada/extension/?assignment=week-1"
    assert f'href="{link}"' in book and 'href="/courses/jax-101/students/ada/override/?assignment=week-1"' in book
    assert "/extension/" not in page_of(signed_in(gradebook[0]).get("/courses/jax-101/gradebook/"))  # the TA's

    form = page_of(client.get(link))
    assert "New due time (Europe/Paris)" in form
    assert f'<option value="{assignment.pk}" selected>' in form
    assert 'value="2026-09-09T01:59"' in form  # the assignment's own due time, in Paris (CEST)
    granted = client.post(link, {"assignment": assignment.pk, "due_at": "2026-09-12T23:59", "reason": "ill"})
    assert granted["Location"] == "/courses/jax-101/gradebook/?assignment=week-1"
    shown = page_of(client.get(granted["Location"]))
    assert "ada&#x27;s due time for Week 1 is now 2026-09-12 23:59 CEST (an extension)." in shown
    assert assignment.due_for(ada) == datetime(2026, 9, 12, 21, 59, tzinfo=UTC)

    again = client.post(link, {"assignment": assignment.pk, "due_at": "2026-09-14T12:00", "reason": "still ill"})
    assert again.status_code == 302
    extension = Extension.objects.get(user=ada)  # one, replaced
    assert (extension.reason, extension.granted_by) == ("still ill", owner)
    assert "2026-09-14 12:00 CEST" in page_of(client.get(link))  # listed on the page

    too_early = client.post(link, {"assignment": assignment.pk, "due_at": "2026-09-08T09:00", "reason": "x"})
    assert too_early.status_code == 400
    assert "An extension must end after the assignment&#x27;s own due time." in page_of(too_early)
    no_reason = client.post(link, {"assignment": assignment.pk, "due_at": "2026-09-20T09:00", "reason": ""})
    assert no_reason.status_code == 400 and "This field is required." in page_of(no_reason)
    assert Extension.objects.get(user=ada).reason == "still ill"
    assert Extension.objects.get(user=bob).reason == "ill"  # another student's untouched


def test_an_override_from_the_gradebook_s_row_is_added_never_changed(client: Client, assignment, gradebook, owner):
    _, ada, _ = gradebook
    item = assignment.items.get(problem__slug="batched_dot")
    signed_in(owner, client)
    link = "/courses/jax-101/students/ada/override/?assignment=week-1"
    form = page_of(client.get(link))
    label = f"Week 1: 2. {item.problem.title} (batched_dot, 10 points)"
    assert label in form and f'<option value="{item.pk}">' in form
    made = client.post(link, {"item": item.pk, "points": "8", "reason": "regraded by hand"})
    assert made["Location"] == "/courses/jax-101/gradebook/?assignment=week-1"
    assert "ada: 8 points on batched_dot in Week 1, set by hand." in page_of(client.get(made["Location"]))
    first = Override.objects.get()
    assert (first.user, first.created_by, first.points) == (ada, owner, 8)

    client.post(link, {"item": item.pk, "points": "7", "reason": "a second look"})
    assert Override.objects.count() == 2 and Override.objects.get(pk=first.pk).points == 8  # a new one, the old kept
    assert assignment.score_of(ada, item.problem).earned == 7.0  # the latest counts
    assert "regraded by hand" in page_of(client.get(link))  # the history is on the page

    for points, reason, message in ((11, "too generous", "At most the problem"), (5, "  ", "Say why the points")):
        refused = client.post(link, {"item": item.pk, "points": points, "reason": reason})
        assert refused.status_code == 400 and message in page_of(refused)
    other = AssignmentProblem.objects.create(
        assignment=Assignment.objects.create(
            course=Course.objects.create(slug="jax-999", title="JAX 999"),
            slug="x",
            title="X",
            release_at=RELEASE,
            due_at=DUE,
        ),
        problem=item.problem,
    )
    elsewhere = client.post(link, {"item": other.pk, "points": 1, "reason": "another course's"})
    assert elsewhere.status_code == 400 and "Select a valid choice." in page_of(elsewhere)
    assert Override.objects.count() == 2


# -- a regrade, confirmed -----------------------------------------------------------------------


def test_a_regrade_says_how_many_submits_it_queues_and_confirming_queues_them(client: Client, assignment, gradebook):
    ta, ada, _ = gradebook
    # Practice before the release is not the course's to grade again: the count leaves it out.
    hand_in(ada, "batched_dot", RELEASE - timedelta(days=1), 100.0)
    signed_in(ta, client)
    book = page_of(client.get("/courses/jax-101/gradebook/"))
    assert 'method="get" action="/courses/jax-101/regrade/confirm/"' in book

    expected = Regrade.covered(assignment)[0].count()
    assert expected == 4  # ada's three hand-ins and bob's one, all after the release
    confirm = page_of(client.get("/courses/jax-101/regrade/confirm/?target=week-1"))
    assert "This queues <strong>4 Submits</strong>" in confirm
    assert '<input type="hidden" name="target" value="week-1">' in confirm
    assert Regrade.objects.count() == 0  # asking is not starting
    one_problem = page_of(client.get("/courses/jax-101/regrade/confirm/?target=week-1/aot_compiled_sum"))
    assert "This queues <strong>1 Submit</strong>" in one_problem

    done = client.post("/courses/jax-101/regrade/", {"target": "week-1"})
    assert done["Location"] == "/courses/jax-101/gradebook/#regrades"
    regrade = Regrade.objects.get()
    assert len(regrade.submission_ids) == expected
    assert "Regrade of Week 1: 4 Submits queued." in page_of(client.get("/courses/jax-101/gradebook/"))
    # Queued, they are not counted again until they are graded.
    assert "Nothing to grade again" in page_of(client.get("/courses/jax-101/regrade/confirm/?target=week-1"))

    assert client.get("/courses/jax-101/regrade/confirm/?target=week-9").status_code == 404
    assert signed_in(ada).get("/courses/jax-101/regrade/confirm/?target=week-1").status_code == 403
