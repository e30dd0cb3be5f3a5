"""The roster from the platform's Names and Roles service: its members enrolled with their
roles, one sync at a time, a page at a time."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from tests.webapp.support.lti_claims import (
    LEARNER,
    MENTOR,
    Person,
)
from tests.webapp.support.lti_course import (
    ALICE,
    SAM,
    TED,
    browser,
    linked_course,
    roster_member,
    run_lti_tasks,
)
from webapp.courses.models import Membership
from webapp.lti.models import CourseLink, PlatformAccount

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_roster_sync_enrols_the_platform_s_members_with_their_roles(platform, capsys):
    course = linked_course(platform)
    run_lti_tasks()  # the sync the instructor's launch queued, on an empty roster
    ada = Person("e5b4a6f8-1c7f-4fc1-9da0-6da0c4fdde55", "Ada", "Learner", "not an email", LEARNER)
    left = Person("f6c5b7a9-2d8a-40d2-aeb1-7eb1d5aeef66", "Lee", "Left", "lee@example.edu", LEARNER)
    mentor = Person("a7d6c8ba-3e9b-41e3-bfc2-8fc2e6bf0a77", "Max", "Mentor", "max@example.edu", MENTOR)
    platform.roster = [
        roster_member(ALICE),
        roster_member(TED),
        roster_member(SAM),
        roster_member(ada),
        roster_member(left, status="Inactive"),
        roster_member(mentor),
    ]

    call_command("lti_sync_roster", course.slug)

    def role_of(person: Person) -> str | None:
        user = PlatformAccount.objects.filter(sub=person.sub).values_list("user", flat=True).first()
        return course.memberships.filter(user=user).values_list("role", flat=True).first()

    assert role_of(ALICE) == "instructor"
    assert role_of(TED) == "ta"
    assert role_of(SAM) == "student"
    assert role_of(ada) == "student"
    assert role_of(left) is None and role_of(mentor) is None
    assert User.objects.get(platform_accounts__sub=ada.sub).email == ""  # not an email: not kept
    assert "enrolled 3, updated 0, skipped 2" in capsys.readouterr().out  # Alice was in already
    assert not platform.refusals


def test_an_instructor_launch_queues_a_roster_sync(canvas):
    course = linked_course(canvas)
    canvas.roster = [roster_member(SAM)]
    canvas.launch(browser(), ALICE)

    ran = run_lti_tasks()

    assert {result.task_path for result in ran} == {"webapp.lti.tasks.sync_roster"}
    assert all(result.status == "SUCCESSFUL" for result in ran), [result.traceback for result in ran]
    sam = User.objects.get(platform_accounts__sub=SAM.sub)
    assert course.membership_of(sam).role == Membership.Role.STUDENT  # type: ignore[union-attr]


# One roster sync at a time, page by page (attack 8)


def test_instructor_launches_queue_one_roster_sync_at_a_time_and_not_every_launch(canvas):
    linked_course(canvas)
    for _ in range(9):
        assert canvas.launch(browser(), ALICE).status_code == 302
    syncs = DBTaskResult.objects.filter(task_path="webapp.lti.tasks.sync_roster")
    assert syncs.count() == 1  # ten launches, one sync

    assert [result.status for result in run_lti_tasks()] == ["SUCCESSFUL"]
    assert canvas.launch(browser(), ALICE).status_code == 302
    assert syncs.count() == 1  # it just ran: not again for a few minutes

    CourseLink.objects.update(roster_synced_at=timezone.now() - CourseLink.ROSTER_SYNC_EVERY)
    assert canvas.launch(browser(), ALICE).status_code == 302
    assert syncs.count() == 2


def test_a_roster_is_enrolled_a_page_at_a_time(canvas):
    course = linked_course(canvas)
    people_on_roster = [
        Person(f"0000000{number}-aaaa-4bbb-8ccc-dddddddddddd", f"P{number}", "Learner", "", LEARNER)
        for number in range(5)
    ]
    canvas.roster = [roster_member(person) for person in people_on_roster]  # three pages of two
    serve_page = canvas.serve_roster

    def second_page_fails(request: Any, query: dict[str, list[str]], **rest: Any) -> Any:
        if query.get("page", ["0"])[0] != "0":
            return 500, {"Content-Type": "text/plain"}, b"down"
        return serve_page(request=request, query=query, **rest)

    canvas.serve_roster = second_page_fails

    (result,) = run_lti_tasks()

    assert result.status == "FAILED"
    # The first page was enrolled before the second was asked for.
    enrolled = set(course.memberships.filter(role="student").values_list("user__platform_accounts__sub", flat=True))
    assert enrolled == {people_on_roster[0].sub, people_on_roster[1].sub}
    # A failed sync holds up no later one.
    assert CourseLink.objects.get().roster_sync_queued_at is None
