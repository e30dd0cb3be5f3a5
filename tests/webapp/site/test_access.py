"""The access table (``webapp/courses/access.py``) held over every view and admin page of the site, for
every role, and the attacks on courses that it closes.

One course (JAX 101) with its instructor, TA and a student (ada), a second course with its own
instructor and student, the site's staff, and a visitor who is not signed in. Each URL the site
serves is requested as each of them; a role the table gives no right to an object never
reaches it, and the roles each case names do.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db.models import ProtectedError
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from webapp.catalog.models import Problem
from webapp.courses import access
from webapp.courses.access import ANONYMOUS, INSTRUCTOR, OTHER_INSTRUCTOR, SITE_STAFF, STUDENT, TA
from webapp.courses.models import (
    Assignment,
    AssignmentProblem,
    Course,
    Invitation,
    Membership,
    Override,
    Regrade,
    RosterUpload,
)
from webapp.submissions.models import Progress, Submission

pytestmark = pytest.mark.django_db

ANOTHER_STUDENT = "a student of another course"  # no right to anything of JAX 101 or of ada's
SLUG = "aot_compiled_sum"
HIDDEN_CANARY = "HIDDEN-OUTPUT-CANARY"
PRACTICE_CANARY = "PRACTICE-BEFORE-JOINING-CANARY"


@dataclass
class World:
    now: Any
    course: Course
    other_course: Course
    week: Assignment
    people: dict[str, User | None]
    practice: Submission  # ada's, on the assignment's problem, before she joined
    work: Submission  # ada's, handed in to the assignment
    regrade: Regrade
    extras: dict[str, Any] = field(default_factory=dict)


def member(course: Course, user: User, role: str, joined: Any) -> None:
    membership = Membership.objects.create(course=course, user=user, role=role)
    Membership.objects.filter(pk=membership.pk).update(joined_at=joined)


def submission(user: User, at: Any, code: str) -> Submission:
    return Submission.objects.create(
        user=user,
        problem=Problem.objects.get(slug=SLUG),
        kind=Submission.Kind.SUBMIT,
        code=code,
        status=Submission.Status.GRADED,
        verdict="accepted",
        score=1.0,
        max_score=1.0,
        handed_in_at=at,
        report={"message": "", "tests": [], "hidden_output": HIDDEN_CANARY},
    )


@pytest.fixture
def world(catalog: None) -> World:
    now = timezone.now()
    course = Course.objects.create(slug="jax-101", title="JAX 101")
    other_course = Course.objects.create(slug="jax-201", title="JAX 201")
    week = Assignment.objects.create(
        course=course, slug="week-1", title="Week 1", release_at=now - timedelta(days=7), due_at=now + timedelta(days=7)
    )
    AssignmentProblem.objects.create(assignment=week, problem=Problem.objects.get(slug=SLUG), points=10)
    people: dict[str, User | None] = {ANONYMOUS: None}
    for role, name in ((INSTRUCTOR, "grace"), (OTHER_INSTRUCTOR, "olga")):
        people[role] = User.objects.create_user(name, password="a-long-password-1")
        call_command("instructor", name, stdout=io.StringIO())
    people[TA] = User.objects.create_user("alan", password="a-long-password-1")
    people[STUDENT] = User.objects.create_user("ada", password="a-long-password-1")
    people[ANOTHER_STUDENT] = User.objects.create_user("eve", password="a-long-password-1")
    people[SITE_STAFF] = User.objects.create_superuser("root", password="a-long-password-1")
    joined = now - timedelta(days=10)
    member(course, people[INSTRUCTOR], Membership.Role.INSTRUCTOR, joined)  # type: ignore[arg-type]
    member(course, people[TA], Membership.Role.TA, joined)  # type: ignore[arg-type]
    member(course, people[STUDENT], Membership.Role.STUDENT, joined)  # type: ignore[arg-type]
    member(other_course, people[OTHER_INSTRUCTOR], Membership.Role.INSTRUCTOR, joined)  # type: ignore[arg-type]
    member(other_course, people[ANOTHER_STUDENT], Membership.Role.STUDENT, joined)  # type: ignore[arg-type]
    ada = people[STUDENT]
    assert ada is not None
    practice = submission(ada, now - timedelta(days=20), f"# {PRACTICE_CANARY}\n")
    work = submission(ada, now - timedelta(days=1), "# handed in to the course\n")
    regrade = Regrade.objects.create(course=course, scope="Week 1", submission_ids=[work.pk])
    return World(now, course, other_course, week, people, practice, work, regrade)


def person(world: World, role: str) -> User:
    user = world.people[role]
    assert user is not None, role
    return user


def client_of(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def reached(response: Any) -> bool:
    """Whether a request got the page (or did what it asked): not refused, not sent to sign in."""
    if response.status_code in (200, 202, 204):
        return True
    if response.status_code == 302:
        return "login" not in response["Location"]
    assert response.status_code in (400, 403, 404, 405, 409), response.status_code
    return False


# -- every view of the site --------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One request of a view and the roles that reach it (each within the table's rights)."""

    method: str
    path: Callable[[World], str]
    reach: frozenset[str]
    data: Callable[[World], dict[str, Any]] = lambda world: {}


SIGNED_IN = frozenset({STUDENT, TA, INSTRUCTOR, OTHER_INSTRUCTOR, SITE_STAFF, ANOTHER_STUDENT})
EVERYONE = SIGNED_IN | {ANONYMOUS}
COURSE_STAFF = frozenset({TA, INSTRUCTOR})
INSTRUCTORS = frozenset({INSTRUCTOR})


def queued(world: World) -> Submission:
    return Submission.objects.create(
        user=person(world, STUDENT), problem=Problem.objects.get(slug=SLUG), kind=Submission.Kind.SUBMIT, code="x = 1\n"
    )


def upload(world: World, *, failed: bool = False) -> RosterUpload:
    """A roster upload of JAX 101's, ended (or failed part way, to be resumed)."""
    status = RosterUpload.Status.FAILED if failed else RosterUpload.Status.DONE
    return RosterUpload.objects.create(course=world.course, uploaded_by=person(world, INSTRUCTOR), status=status)


def invitation(world: World) -> Invitation:
    """A pending invitation to JAX 101 (a new one for each request)."""
    number = Invitation.objects.count()
    return Invitation.objects.create(
        course=world.course,
        username=f"invited{number}",
        email=f"invited{number}@school.example",
        expires_at=world.now + timedelta(days=7),
    )


def problem_path(suffix: str) -> Callable[[World], str]:
    return lambda world: f"/problems/{SLUG}/{suffix}"


CASES: dict[str, list[Case]] = {
    "catalog:list": [Case("get", lambda w: "/", EVERYONE)],
    "catalog:detail": [Case("get", problem_path(""), EVERYONE)],
    "catalog:notebook": [Case("get", problem_path("notebook.ipynb"), SIGNED_IN)],
    "submissions:draft": [Case("post", problem_path("draft/"), SIGNED_IN, lambda w: {"code": "x = 1\n"})],
    "submissions:run": [Case("post", problem_path("run/"), SIGNED_IN, lambda w: {"code": "x = 1\n"})],
    "submissions:submit": [Case("post", problem_path("submit/"), SIGNED_IN, lambda w: {"code": "x = 1\n"})],
    "submissions:progress": [Case("get", lambda w: "/progress/", SIGNED_IN)],
    # The site's own pages of a submission: its owner and the site's staff; a course's staff
    # read it through the course (``courses:submission``).
    "submissions:detail": [Case("get", lambda w: f"/submissions/{w.work.pk}/", frozenset({STUDENT, SITE_STAFF}))],
    "submissions:status": [
        Case("get", lambda w: f"/submissions/{w.work.pk}/status/", frozenset({STUDENT, SITE_STAFF}))
    ],
    # Each request cancels a Submit of ada's still in the queue, made for it.
    "submissions:cancel": [
        Case("post", lambda w: f"/submissions/{queued(w).pk}/cancel/", frozenset({STUDENT, SITE_STAFF}))
    ],
    "submissions:solution": [Case("get", problem_path("solution/"), SIGNED_IN)],
    "courses:list": [Case("get", lambda w: "/courses/", SIGNED_IN)],
    "courses:detail": [Case("get", lambda w: "/courses/jax-101/", frozenset({STUDENT, TA, INSTRUCTOR}))],
    "courses:assignment": [
        Case("get", lambda w: "/courses/jax-101/week-1/", frozenset({STUDENT, TA, INSTRUCTOR})),
        Case("get", lambda w: "/courses/jax-101/week-1/?student=ada", frozenset({STUDENT, TA, INSTRUCTOR})),
    ],
    "courses:gradebook": [Case("get", lambda w: "/courses/jax-101/gradebook/", COURSE_STAFF)],
    "courses:roster": [Case("get", lambda w: "/courses/jax-101/roster/", frozenset({INSTRUCTOR}))],
    "courses:regrade": [
        Case("post", lambda w: "/courses/jax-101/regrade/", COURSE_STAFF, lambda w: {"target": "week-1"})
    ],
    "courses:regrade_progress": [Case("get", lambda w: f"/courses/jax-101/regrades/{w.regrade.pk}/", COURSE_STAFF)],
    "courses:submission": [
        Case("get", lambda w: f"/courses/jax-101/submissions/{w.work.pk}/", COURSE_STAFF),
        # Practice from before she joined: no one's through the course, whatever the release says.
        Case("get", lambda w: f"/courses/jax-101/submissions/{w.practice.pk}/", frozenset()),
    ],
    "courses:roster_upload": [Case("get", lambda w: f"/courses/jax-101/roster/uploads/{upload(w).pk}/", INSTRUCTORS)],
    "courses:roster_upload_resume": [
        Case("post", lambda w: f"/courses/jax-101/roster/uploads/{upload(w, failed=True).pk}/resume/", INSTRUCTORS)
    ],
    "courses:invitation_resend": [
        Case("post", lambda w: f"/courses/jax-101/roster/invitations/{invitation(w).pk}/resend/", INSTRUCTORS)
    ],
    # Joining by the invite link: anyone signed in who has the link (it is the course's to share).
    "courses:join": [Case("get", lambda w: f"/courses/join/{w.course.invite_code}/", SIGNED_IN)],
}

# Where another person's link is tried: the owner's own pages use ids, so another student's
# id must get nothing. The views above are requested with ada's and JAX 101's ids.


def url_names(patterns: list[Any], namespace: str = "") -> list[str]:
    names = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                continue  # the admin's pages are walked by model below
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            names += url_names(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern):
            names.append(f"{namespace}{pattern.name}")
    return names


def test_every_view_of_the_site_is_in_the_access_table():
    served = set(url_names(get_resolver().url_patterns))
    assert served - set(access.VIEWS) == set(), "a new view: add it to webapp/courses/access.py's VIEWS and a case here"
    assert set(access.VIEWS) - served == set(), "VIEWS names a view the site no longer serves"
    for name, object_name in access.VIEWS.items():
        assert object_name is None or object_name in access.TABLE_BY_NAME, name
        if object_name is not None:
            assert name in CASES, f"{name} shows {object_name!r}: it needs a case in this test"


# Views of one's own things (or the public catalog): whoever is signed in acts on their own.
OWN_THINGS = (access.CATALOG, access.OWN_WORK, access.SOLUTION)
OWN_VIEWS = ("courses:list", "courses:join")


def allowed_by_table(name: str, role: str) -> bool:
    row = access.TABLE_BY_NAME[access.VIEWS[name]]  # type: ignore[index]
    if row.name in OWN_THINGS or name in OWN_VIEWS:
        return role != ANONYMOUS or row.on_pages(ANONYMOUS)
    return role != ANOTHER_STUDENT and row.on_pages(role)


def test_each_view_is_reached_by_the_roles_the_table_allows_and_no_other(world: World):
    for name, cases in CASES.items():
        for case in cases:
            for role, user in world.people.items():
                assert allowed_by_table(name, role) or role not in case.reach, f"{name}: the case lets {role} in"
                path = case.path(world)
                response = getattr(client_of(user), case.method)(path, case.data(world))
                assert reached(response) == (role in case.reach), (name, path, role, response.status_code)


def test_another_person_s_submission_is_a_404_on_every_page_that_takes_its_id(world: World):
    eve = world.people[ANOTHER_STUDENT]
    client = client_of(eve)
    for path in (f"/submissions/{world.work.pk}/", f"/submissions/{world.work.pk}/status/"):
        assert client.get(path).status_code == 404
    assert client.post(f"/submissions/{world.work.pk}/cancel/").status_code == 404
    assert client.get(f"/courses/jax-201/submissions/{world.work.pk}/").status_code in (403, 404)


# -- every admin page ----------------------------------------------------------------------------


def admin_objects(world: World) -> dict[str, Any]:
    """An object of JAX 101 (or of ada's) for each admin model that has one."""
    override = Override.objects.create(
        item=world.week.items.get(), user=person(world, STUDENT), points=5, reason="by hand", created_by=None
    )
    return {
        "courses.Course": world.course,
        "courses.Assignment": world.week,
        "courses.Override": override,
        "courses.Regrade": world.regrade,
        "submissions.Submission": world.work,
        "catalog.Problem": Problem.objects.get(slug=SLUG),
        "auth.User": world.people[STUDENT],
        "courses.Invitation": invitation(world),
        "courses.RosterUpload": upload(world),
    }


def test_every_admin_page_is_reached_by_the_roles_the_table_allows(world: World):
    registered = {model._meta.label: model for model in admin.site._registry}
    assert set(registered) - set(access.ADMIN_MODELS) == set(), "a new admin page: add it to ADMIN_MODELS"
    objects = admin_objects(world)
    for label, model in registered.items():
        row = access.TABLE_BY_NAME[access.ADMIN_MODELS[label]]
        info = (model._meta.app_label, model._meta.model_name)
        pages = [reverse("admin:{}_{}_changelist".format(*info))]
        if label in objects:
            pages.append(reverse("admin:{}_{}_change".format(*info), args=[objects[label].pk]))
        for role, user in world.people.items():
            for page in pages:
                response = client_of(user).get(page)
                got_it = response.status_code == 200
                if role == OTHER_INSTRUCTOR and got_it and not row.in_admin(role):
                    # An instructor's list pages show their own courses' rows: never JAX 101's.
                    assert "/change/" not in page, (label, page)
                    assert "JAX 101" not in response.content.decode(), (label, page)
                    continue
                if got_it:
                    assert row.in_admin(role) or role == SITE_STAFF, (label, page, role)
                if role == SITE_STAFF:
                    assert got_it, (label, page)
                if role in (ANONYMOUS, STUDENT, TA, ANOTHER_STUDENT):
                    assert not got_it, (label, page, role)


def test_the_courses_page_shows_the_access_table():
    page = (Path(__file__).parents[3] / "docs" / "courses.md").read_text()
    assert access.markdown_table() in page, "docs/courses.md's access table differs:\n" + access.markdown_table()


# -- the attacks ---------------------------------------------------------------------------------


def test_a_release_moved_back_shows_the_course_no_practice_from_before_the_student_joined(world: World):
    """Attack: the instructor moves the release to 2000 to read a student's old practice."""
    instructor = client_of(world.people[INSTRUCTOR])
    Assignment.objects.filter(pk=world.week.pk).update(release_at=world.now.replace(year=2000))
    assert instructor.get(f"/courses/jax-101/submissions/{world.practice.pk}/").status_code == 404
    standing = instructor.get("/courses/jax-101/week-1/?student=ada").content.decode()
    assert f"/submissions/{world.practice.pk}/" not in standing
    assert PRACTICE_CANARY not in instructor.get(f"/courses/jax-101/submissions/{world.work.pk}/").content.decode()
    # Nor is it graded again by a regrade of the assignment.
    assert instructor.post("/courses/jax-101/regrade/", {"target": "week-1"}).status_code == 302
    latest = Regrade.objects.filter(course=world.course).first()
    assert latest is not None and latest.submission_ids == [world.work.pk]
    # And a colleague's standing is no student's: a TA reads the students' only.
    ta = client_of(world.people[TA])
    assert ta.get("/courses/jax-101/week-1/?student=grace").status_code == 404


def test_course_staff_never_read_hidden_test_output_even_of_their_own_second_account(world: World):
    """Attack: an instructor enrols a second account of theirs as a student and reads what its
    submissions printed under the hidden tests (and so the hidden inputs)."""
    instructor = client_of(world.people[INSTRUCTOR])
    page = instructor.get(f"/courses/jax-101/submissions/{world.work.pk}/").content.decode()
    assert "handed in to the course" in page and HIDDEN_CANARY not in page
    own = client_of(world.people[STUDENT])
    assert HIDDEN_CANARY not in own.get(f"/submissions/{world.work.pk}/").content.decode()
    assert HIDDEN_CANARY not in own.get(f"/submissions/{world.work.pk}/status/").content.decode()
    staff = client_of(world.people[SITE_STAFF])
    assert HIDDEN_CANARY in staff.get(f"/submissions/{world.work.pk}/").content.decode()


def test_removing_a_problem_with_overrides_keeps_the_override_log(world: World):
    """Attack: removing a problem from an assignment used to cascade away its overrides."""
    override = Override.objects.create(
        item=world.week.items.get(), user=person(world, STUDENT), points=5, reason="by hand", created_by=None
    )
    with pytest.raises(ProtectedError):
        world.week.items.get().delete()
    # In the admin, the instructor's removal of the problem is refused with the reason.
    instructor = client_of(world.people[INSTRUCTOR])
    page = f"/admin/courses/assignment/{world.week.pk}/change/"
    form = admin_form(instructor.get(page).content.decode())
    form["items-0-DELETE"] = "on"
    answer = instructor.post(page, form)
    assert answer.status_code == 200, answer.status_code
    assert "protected" in answer.content.decode().lower()
    assert Override.objects.filter(pk=override.pk).exists() and world.week.items.exists()
    with pytest.raises(ProtectedError):
        world.course.delete()  # a course's regrades keep it


def test_an_open_assignment_hides_its_problems_solutions_until_the_due_time(world: World):
    """Attack: a student reveals the reference solution of a problem of an open assignment."""
    ada = client_of(world.people[STUDENT])
    refused = ada.post(f"/problems/{SLUG}/solution/")
    assert refused.status_code == 403 and "opens after your due time" in refused.content.decode()
    page = ada.get(f"/problems/{SLUG}/solution/").content.decode()
    assert 'data-testid="solution"' not in page and 'data-testid="solution-hidden"' in page
    assert not Progress.objects.filter(user=world.people[STUDENT], solution_viewed_at__isnull=False).exists()
    # A student of another course, and the course's staff, may still reveal it.
    assert client_of(world.people[ANOTHER_STUDENT]).post(f"/problems/{SLUG}/solution/").status_code == 302
    # After the due time it opens.
    Assignment.objects.filter(pk=world.week.pk).update(due_at=world.now - timedelta(hours=1))
    assert ada.post(f"/problems/{SLUG}/solution/").status_code == 302
    assert 'data-testid="solution"' in ada.get(f"/problems/{SLUG}/solution/").content.decode()


def test_a_course_may_show_open_solutions_and_the_gradebook_marks_who_looked(world: World):
    Course.objects.filter(pk=world.course.pk).update(early_solutions=Course.EarlySolutions.SHOWN_AND_MARKED)
    ada = client_of(world.people[STUDENT])
    assert ada.post(f"/problems/{SLUG}/solution/").status_code == 302
    assert 'data-testid="solution"' in ada.get(f"/problems/{SLUG}/solution/").content.decode()
    gradebook = client_of(world.people[TA]).get("/courses/jax-101/gradebook/").content.decode()
    row = gradebook[gradebook.index(">ada<") :]
    assert "solution seen" in row[: row.index("</tr>")]


class FormReader(HTMLParser):
    """The values a browser would post from a form (text, hidden, checked boxes, chosen options)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self.select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        name = found.get("name")
        if tag == "input" and name and found.get("type") not in ("submit", "checkbox", "file"):
            self.values[name] = found.get("value") or ""
        elif tag == "input" and name and found.get("type") == "checkbox" and "checked" in found:
            self.values[name] = found.get("value") or "on"
        elif tag == "select" and name:
            self.select = name
            self.values.setdefault(name, "")
        elif tag == "option" and self.select and "selected" in found:
            self.values[self.select] = found.get("value") or ""
        elif tag == "textarea" and name:
            self.values[name] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self.select = None


def admin_form(html: str) -> dict[str, str]:
    """The values of an admin change page's form (``id="MODEL_form"``), as a browser posts them."""
    reader = FormReader()
    start = html.index(re.search(r'<form[^>]*id="\w+_form"', html).group(0))  # type: ignore[union-attr]
    reader.feed(html[start : html.index("</form>", start)])
    values = {name: value for name, value in reader.values.items() if not re.search(r"__prefix__", name)}
    values["_save"] = "Save"
    return values


def test_a_course_asks_for_a_limited_number_of_regrades_at_a_time(world: World):
    """Each regrade queues a class's Submits for the graders students wait on: the eleventh in
    ten minutes is refused, saying why."""
    ta = client_of(world.people[TA])
    for _ in range(Regrade.MAX_PER_WINDOW - Regrade.objects.filter(course=world.course).count()):
        assert ta.post("/courses/jax-101/regrade/", {"target": "week-1"}).status_code == 302
    refused = ta.post("/courses/jax-101/regrade/", {"target": "week-1"})
    assert refused.status_code == 429
    assert "asked for 10 regrades in the last 10 minutes" in refused.content.decode()
    assert Regrade.objects.filter(course=world.course).count() == Regrade.MAX_PER_WINDOW
    # Once the window has passed, the course may ask again.
    Regrade.objects.filter(course=world.course).update(requested_at=world.now - timedelta(minutes=11))
    assert ta.post("/courses/jax-101/regrade/", {"target": "week-1"}).status_code == 302
