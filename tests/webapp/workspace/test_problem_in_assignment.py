"""A problem opened from an assignment: its page names the assignment, the student's due time in
their own zone, their standing and the assignment's previous and next problems; the solution's
"next" follows the assignment; and whoever may not see the assignment gets the catalog's page
with no trace of it."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.webapp.support.course_week import DUE, hand_in, week_one
from tests.webapp.support.people import enrol
from webapp.accounts.models import Profile
from webapp.catalog.models import Problem
from webapp.courses.models import Assignment, AssignmentProblem, Extension, Membership, Override
from webapp.submissions.models import Progress, Submission

pytestmark = pytest.mark.django_db

IN_WEEK_ONE = "?assignment=jax-101/week-1"
# Week 1's three problems, in its order.
FIRST, MIDDLE, LAST = "aot_compiled_sum", "batched_dot", "compile_for"


@pytest.fixture
def week(course, catalog) -> Assignment:
    """JAX 101's Week 1 with a third problem, late work at 10% a day after a 5-minute grace."""
    assignment = week_one(course)
    AssignmentProblem.objects.create(
        assignment=assignment, problem=Problem.objects.get(slug=LAST), position=2, points=10
    )
    assignment.late_policy = Assignment.LatePolicy.PENALTY_PER_DAY
    assignment.grace_minutes = 5
    assignment.save()
    return assignment


def page_of(client, slug: str, query: str = IN_WEEK_ONE) -> str:
    response = client.get(reverse("catalog:detail", args=[slug]) + query)
    assert response.status_code == 200
    return response.content.decode()


def text_of(page: str) -> str:
    """What a page reads as: tags out, entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())


def problem_url(slug: str, query: str = IN_WEEK_ONE) -> str:
    return reverse("catalog:detail", args=[slug]) + query


def test_a_student_opens_a_problem_from_the_assignment_and_sees_it_in_their_zone(client, week, course_student):
    # Due 04:59 UTC on 4 December: in New York, 23:59 the evening before (EST, winter time).
    week.due_at = datetime(2026, 12, 4, 4, 59, tzinfo=UTC)
    week.save()
    Profile.set_time_zone(course_student, "America/New_York")
    client.force_login(course_student)
    assignment_page = client.get("/courses/jax-101/week-1/").content.decode()
    for slug in (FIRST, MIDDLE, LAST):  # the assignment opens each of its problems inside it
        assert f'href="{problem_url(slug)}"' in assignment_page

    page = page_of(client, MIDDLE)
    text = text_of(page)
    assert 'data-testid="in-assignment"' in page
    assert f'href="{reverse("courses:assignment", args=["jax-101", "week-1"])}">Week 1</a>' in page
    assert f'href="{reverse("courses:detail", args=["jax-101"])}">JAX 101</a>' in page
    assert "Due 2026-12-03 23:59 EST." in text
    assert 'datetime="2026-12-04T04:59:00+00:00"' in page  # the instant itself, for machines
    assert "a hand-in up to 5 minutes after the due time counts as on time" in text
    assert "10% a day" in text
    assert "Your points on this problem: 0 of 10." in text
    assert f'<a rel="prev" href="{problem_url(FIRST)}">' in page
    assert f'<a rel="next" href="{problem_url(LAST)}">' in page
    assert f'href="{reverse("submissions:solution", args=[MIDDLE])}{IN_WEEK_ONE}"' in page

    first = page_of(client, FIRST)
    assert 'rel="prev"' not in first and f'<a rel="next" href="{problem_url(MIDDLE)}">' in first
    last = page_of(client, LAST)
    assert f'<a rel="prev" href="{problem_url(MIDDLE)}">' in last
    assert 'rel="next"' not in last and "The assignment's last problem." in last


def test_the_problem_page_shows_the_student_s_standing_under_their_extension(client, week, course_student):
    Extension.objects.create(assignment=week, user=course_student, due_at=DUE + timedelta(days=1), reason="ill")
    # A Submit 30 s after the extension's end, in the grace period: its note says what it earned.
    handed_in = hand_in(course_student, MIDDLE, DUE + timedelta(days=1, seconds=30), 80.0)
    client.force_login(course_student)
    page = page_of(client, MIDDLE)
    text = text_of(page)
    assert "Due 2026-09-09 23:59 UTC (your extension)." in text
    score = week.score_of(course_student, Problem.objects.get(slug=MIDDLE))
    assert score is not None and score.submission_id == handed_in.pk
    assert "Your points on this problem: 8 of 10, from your Submit of 2026-09-09 23:59:30 UTC." in text
    assert score.earned == 8.0  # within the grace: on time, full credit
    assert "Handed in 30 s after the due time, within the 5-minute grace: full credit." in text


def test_whoever_may_not_see_the_assignment_gets_the_plain_page(client, week, course_student, outsider, peer):
    hand_in(course_student, MIDDLE, DUE, 100.0)
    plain = page_of(client, MIDDLE, query="")
    for reader in (None, outsider, peer):  # a visitor, an account in no course, another course's instructor
        client.logout()
        if reader is not None:
            client.force_login(reader)
        page = page_of(client, MIDDLE)
        assert "in-assignment" not in page and "Week 1" not in page and "JAX 101" not in page
        assert "week-1" not in page and "jax-101" not in page
    # A member, with a name that is not a visible assignment holding the problem: the plain page too.
    Problem.objects.get(slug="scan_cumsum")  # installed, in no assignment
    client.force_login(course_student)
    for slug, query in (
        (MIDDLE, "?assignment=jax-101/week-2"),
        (MIDDLE, "?assignment=jax-101"),
        (MIDDLE, "?assignment=/week-1"),
        (MIDDLE, "?assignment=jax-101/week-1/again"),
        (MIDDLE, "?assignment=" + "x" * 5000),
        (MIDDLE, "?assignment=jax-999/week-1"),
        ("scan_cumsum", IN_WEEK_ONE),  # a problem the assignment does not hold
    ):
        page = page_of(client, slug, query)
        assert "in-assignment" not in page and "Week 1" not in page, query
    assert "in-assignment" not in plain


def test_a_student_does_not_see_an_unreleased_assignment_on_the_problem_page(client, week, course_student, ta):
    week.release_at = datetime(2999, 1, 1, tzinfo=UTC)
    week.due_at = datetime(2999, 2, 1, tzinfo=UTC)
    week.save()
    client.force_login(course_student)
    page = page_of(client, MIDDLE)
    assert "in-assignment" not in page and "Week 1" not in page
    client.force_login(ta)  # the course's staff see it before its release, with no standing of their own
    page = page_of(client, MIDDLE)
    assert 'data-testid="in-assignment"' in page and "Week 1" in page
    assert 'data-testid="standing"' not in page


def accepted(user, slug: str) -> Submission:
    submission = hand_in(user, slug, DUE - timedelta(days=1), 100.0)
    Submission.objects.filter(pk=submission.pk).update(verdict="accepted")
    Progress.refresh(user.pk, submission.problem_id)
    return submission


def test_the_solution_s_next_problem_follows_the_assignment_it_was_opened_from(client, week, course_student):
    accepted(course_student, FIRST)
    accepted(course_student, LAST)
    client.force_login(course_student)
    url = reverse("submissions:solution", args=[FIRST])
    inside = client.get(url + IN_WEEK_ONE).content.decode()
    assert f'href="{problem_url(MIDDLE)}">' in inside
    assert "Next in Week 1: " + Problem.objects.get(slug=MIDDLE).title in text_of(inside)
    assert f'href="{problem_url(FIRST)}">' in inside  # the title leads back to the problem, still inside

    ordered = list(Problem.objects.all())
    following = ordered[[problem.slug for problem in ordered].index(FIRST) + 1]
    assert following.slug != MIDDLE  # else the test could not tell the two orders apart
    outside = client.get(url).content.decode()
    assert f'href="{reverse("catalog:detail", args=[following.slug])}">' in outside
    assert "Next in the course: " + following.title in text_of(outside)
    assert "?assignment=" not in outside

    last = text_of(client.get(reverse("submissions:solution", args=[LAST]) + IN_WEEK_ONE).content.decode())
    assert "That was the last problem of Week 1." in last
    # Another course's assignment in the URL is ignored: the catalog's order.
    assert "Next in the course" in text_of(client.get(url + "?assignment=jax-201/final").content.decode())


def test_revealing_the_solution_stays_in_the_assignment(client, week, course_student):
    client.force_login(course_student)
    url = reverse("submissions:solution", args=[MIDDLE]) + IN_WEEK_ONE
    response = client.post(url)
    assert response.status_code == 302 and response.url == url


def test_an_override_reads_as_a_sentence_on_the_problem_and_assignment_pages(client, week, course_student, owner):
    owner.first_name, owner.last_name = "Grace", "Hopper"
    owner.save()
    hand_in(course_student, MIDDLE, DUE + timedelta(days=2), 100.0)  # 2 days late: 80%
    hand_in(course_student, FIRST, DUE - timedelta(hours=1), 50.0)  # on time
    items = {item.problem.slug: item for item in week.items.select_related("problem")}
    Override.objects.create(
        item=items[MIDDLE], user=course_student, points=8, reason="Graded by hand.", created_by=owner
    )
    Override.objects.create(item=items[FIRST], user=course_student, points=1, reason="a typo", created_by=None)
    client.force_login(course_student)
    late_one = "8 points set by Grace Hopper: Graded by hand; the late penalty no longer applies."
    on_time = "1 point set by the course staff: a typo."
    assert late_one in text_of(page_of(client, MIDDLE))
    assert "Your points on this problem: 8 of 10" in text_of(page_of(client, MIDDLE))
    assert on_time in text_of(page_of(client, FIRST))
    assignment_page = text_of(client.get("/courses/jax-101/week-1/").content.decode())
    assert late_one in assignment_page and on_time in assignment_page
    assert "no longer applies" not in on_time


def test_the_problem_page_inside_an_assignment_stays_fast(client, week, course_student, django_assert_max_num_queries):
    """The assignment adds a fixed number of queries, however much the student handed in."""
    for slug in (FIRST, MIDDLE, LAST):
        for hours in range(1, 6):
            hand_in(course_student, slug, DUE + timedelta(hours=hours * 7), 20.0 * hours)
    for other in range(5):  # classmates' work is not read
        hand_in(enrol(week.course, f"classmate{other}", Membership.Role.STUDENT), MIDDLE, DUE, 100.0)
    items = {item.problem.slug: item for item in week.items.select_related("problem")}
    Override.objects.create(item=items[LAST], user=course_student, points=3, reason="by hand")
    client.force_login(course_student)
    page_of(client, MIDDLE, query="")  # sessions and caches warmed
    with CaptureQueriesContext(connection) as plain:
        page_of(client, MIDDLE, query="")
    # The course and the reader's membership, the assignment, their due time, their scores
    # (``Assignment.scores``: four or five) and the assignment's order: fourteen today.
    with django_assert_max_num_queries(len(plain) + 15):
        page = page_of(client, MIDDLE)
    assert 'data-testid="standing"' in page
