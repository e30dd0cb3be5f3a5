"""A test client signed in as the student, with the catalog installed."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.webapp.support.people import signed_in


@pytest.fixture
def student_client(client: Client, catalog: None, student: User) -> Client:
    return signed_in(student, client)
