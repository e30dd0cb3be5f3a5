"""The request a signed-in view gets."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest


class SignedInRequest(HttpRequest):
    """A request that ``login_required`` let through: its user is a real account."""

    user: User
