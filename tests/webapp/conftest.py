"""What the web tests share: the static files collected, the bundled problems in the catalog,
and a student."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User

from grader.problem import all_problems
from webapp import grading, static_files
from webapp.catalog.models import Problem


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
    return django_user_model.objects.create_user("ada", password="a-long-password-1")


@pytest.fixture(scope="module")
def sandboxes() -> Iterator[None]:
    """Real gradings share this process's warm sandboxes; close them after the module."""
    yield
    grading.close_pools()
