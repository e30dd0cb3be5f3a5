"""The access table (``webapp/courses/access.py``) held over every view and admin page of the site, for
every role.

One course (JAX 101) with its instructor, TA and a student (ada), a second course with its own
instructor and student, the site's staff, and a visitor who is not signed in. Each URL the site
serves is requested as each of them; a role the table gives no right to an object never
reaches it, and the roles each case names do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.webapp.support.access_world import (
    ANOTHER_STUDENT,
    SLUG,
    World,
    person,
    reached,
)
from tests.webapp.support.people import signed_in
from webapp.catalog.models import Problem
from webapp.courses import access
from webapp.courses.access import ANONYMOUS, INSTRUCTOR, OTHER_INSTRUCTOR, SITE_STAFF, STUDENT, TA
from webapp.courses.models import (
    Invitation,
    Override,
    RosterUpload,
)
from webapp.submissions.models import Submission

pytestmark = pytest.mark.django_db


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
    "account": [Case("get", lambda w: "/accounts/settings/", SIGNED_IN)],
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
    "courses:statistics": [
        Case("get", lambda w: "/courses/jax-101/gradebook/statistics/", COURSE_STAFF),
        Case("get", lambda w: "/courses/jax-101/gradebook/statistics/?format=csv", COURSE_STAFF),
    ],
    "courses:roster": [Case("get", lambda w: "/courses/jax-101/roster/", frozenset({INSTRUCTOR}))],
    # Creating a course: the accounts the site lets (both instructors here), whatever course they teach.
    "courses:create": [Case("get", lambda w: "/courses/new/", frozenset({INSTRUCTOR, OTHER_INSTRUCTOR}))],
    "courses:edit": [Case("get", lambda w: "/courses/jax-101/edit/", INSTRUCTORS)],
    "courses:assignment_create": [Case("get", lambda w: "/courses/jax-101/assignments/new/", INSTRUCTORS)],
    "courses:assignment_edit": [Case("get", lambda w: "/courses/jax-101/week-1/edit/", INSTRUCTORS)],
    "courses:extension": [Case("get", lambda w: "/courses/jax-101/students/ada/extension/", INSTRUCTORS)],
    "courses:override": [Case("get", lambda w: "/courses/jax-101/students/ada/override/", INSTRUCTORS)],
    "courses:regrade_confirm": [Case("get", lambda w: "/courses/jax-101/regrade/confirm/?target=week-1", COURSE_STAFF)],
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
    "courses:member_role": [
        Case("post", lambda w: "/courses/jax-101/roster/members/ada/role/", INSTRUCTORS, lambda w: {"role": "ta"})
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


OWN_VIEWS = ("courses:list", "courses:join", "courses:create")


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
                response = getattr(signed_in(user), case.method)(path, case.data(world))
                assert reached(response) == (role in case.reach), (name, path, role, response.status_code)


def test_another_person_s_submission_is_a_404_on_every_page_that_takes_its_id(world: World):
    eve = world.people[ANOTHER_STUDENT]
    client = signed_in(eve)
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
                response = signed_in(user).get(page)
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
