"""What the web tests share: the bundled problems in the catalog, and a student."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from grader.problem import all_problems
from webapp.catalog.models import Problem


@pytest.fixture
def catalog() -> None:
    for problem in all_problems():
        Problem.install(problem)


@pytest.fixture
def student(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("ada", password="a-long-password-1")
