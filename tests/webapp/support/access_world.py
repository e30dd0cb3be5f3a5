"""The world the access table is walked over: JAX 101 with its instructor, TA and a student
(ada), JAX 201 with its own instructor and student, the site's staff, and a visitor who is not
signed in; ada's practice from before she joined and her work handed in to the course."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User

from tests.webapp.support.people import submission_of
from webapp.courses.models import Assignment, Course, Regrade
from webapp.submissions.models import Submission

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
    people: dict[str, User | None]  # by role (``webapp.courses.access``'s names, and ANOTHER_STUDENT)
    practice: Submission  # ada's, on the assignment's problem, before she joined
    work: Submission  # ada's, handed in to the assignment
    regrade: Regrade
    extras: dict[str, Any] = field(default_factory=dict)


def accepted_work(user: User, at: Any, code: str) -> Submission:
    """An accepted Submit of ``user``'s handed in at ``at``, whose hidden tests printed the canary."""
    return submission_of(
        user,
        SLUG,
        code=code,
        verdict="accepted",
        score=1.0,
        max_score=1.0,
        handed_in_at=at,
        report={"message": "", "tests": [], "hidden_output": HIDDEN_CANARY},
    )


def person(world: World, role: str) -> User:
    user = world.people[role]
    assert user is not None, role
    return user


def reached(response: Any) -> bool:
    """Whether a request got the page (or did what it asked): not refused, not sent to sign in."""
    if response.status_code in (200, 202, 204):
        return True
    if response.status_code == 302:
        return "login" not in response["Location"]
    assert response.status_code in (400, 403, 404, 405, 409), response.status_code
    return False
