"""What the web tests share: the static files collected, the bundled problems in the catalog,
a student (and a client signed in as them), and the people around a course (``tests/webapp/support/people.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.test import Client

from grader.problem import all_problems
from tests.webapp.support.people import PASSWORD, enrol, member, signed_in
from webapp import grading, static_files
from webapp.catalog.models import Problem
from webapp.courses.models import Course, Membership


@pytest.fixture(scope="session", autouse=True)
def collected_static_files() -> None:
    """Pages link static files by their collected names (``make setup`` collects them; this
    does where the tests run without it)."""
    static_files.collect_if_stale()


@pytest.fixture
def catalog() -> None:
    for problem in all_problems():
        Problem.install(problem)


@pytest.fixture
def student(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("ada", password=PASSWORD)


@pytest.fixture
def student_client(client: Client, catalog: None, student: User) -> Client:
    """A test client signed in as the student, with the catalog installed."""
    return signed_in(student, client)


@pytest.fixture(scope="module")
def sandboxes() -> Iterator[None]:
    """Real gradings share this process's warm sandboxes; close them after the module."""
    yield
    grading.close_pools()


# The people around a course: JAX 101 with its owner (instructor), TA and student, and JAX 201
# with its own instructor (a peer: staff of a course, nobody in another); an outsider is in
# neither. Each is a member since long before any term the tests set.


@pytest.fixture
def course() -> Course:
    return Course.objects.create(slug="jax-101", title="JAX 101")


@pytest.fixture
def other_course() -> Course:
    return Course.objects.create(slug="jax-201", title="JAX 201")


@pytest.fixture
def owner(course: Course) -> User:
    return enrol(course, "grace", Membership.Role.INSTRUCTOR)


@pytest.fixture
def ta(course: Course) -> User:
    return enrol(course, "alan", Membership.Role.TA)


@pytest.fixture
def course_student(course: Course, student: User) -> User:
    return member(course, student)


@pytest.fixture
def peer(other_course: Course) -> User:
    return enrol(other_course, "olga", Membership.Role.INSTRUCTOR)


@pytest.fixture
def outsider(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("eve", password=PASSWORD)
