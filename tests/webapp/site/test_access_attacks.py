"""The attacks on courses that the access table closes: practice from before a student joined,
hidden-test output, override logs that outlive what they point at, solutions before the due
time, and regrades asked for too often (the world: ``tests/webapp/support/access_world.py``)."""

from __future__ import annotations

import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.db.models import ProtectedError

from tests.webapp.support.access_world import (
    ANOTHER_STUDENT,
    HIDDEN_CANARY,
    PRACTICE_CANARY,
    SLUG,
    World,
    person,
)
from tests.webapp.support.people import signed_in
from webapp.courses.access import INSTRUCTOR, SITE_STAFF, STUDENT, TA
from webapp.courses.models import (
    Assignment,
    Course,
    Override,
    Regrade,
)
from webapp.submissions.models import Progress

pytestmark = pytest.mark.django_db


def test_a_release_moved_back_shows_the_course_no_practice_from_before_the_student_joined(world: World):
    """Attack: the instructor moves the release to 2000 to read a student's old practice."""
    instructor = signed_in(world.people[INSTRUCTOR])
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
    ta = signed_in(world.people[TA])
    assert ta.get("/courses/jax-101/week-1/?student=grace").status_code == 404


def test_course_staff_never_read_hidden_test_output_even_of_their_own_second_account(world: World):
    """Attack: an instructor enrols a second account of theirs as a student and reads what its
    submissions printed under the hidden tests (and so the hidden inputs)."""
    instructor = signed_in(world.people[INSTRUCTOR])
    page = instructor.get(f"/courses/jax-101/submissions/{world.work.pk}/").content.decode()
    assert "handed in to the course" in page and HIDDEN_CANARY not in page
    own = signed_in(world.people[STUDENT])
    assert HIDDEN_CANARY not in own.get(f"/submissions/{world.work.pk}/").content.decode()
    assert HIDDEN_CANARY not in own.get(f"/submissions/{world.work.pk}/status/").content.decode()
    staff = signed_in(world.people[SITE_STAFF])
    assert HIDDEN_CANARY in staff.get(f"/submissions/{world.work.pk}/").content.decode()


def test_removing_a_problem_with_overrides_keeps_the_override_log(world: World):
    """Attack: removing a problem from an assignment used to cascade away its overrides."""
    override = Override.objects.create(
        item=world.week.items.get(), user=person(world, STUDENT), points=5, reason="by hand", created_by=None
    )
    with pytest.raises(ProtectedError):
        world.week.items.get().delete()
    # In the admin, the instructor's removal of the problem is refused with the reason.
    instructor = signed_in(world.people[INSTRUCTOR])
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
    ada = signed_in(world.people[STUDENT])
    refused = ada.post(f"/problems/{SLUG}/solution/")
    assert refused.status_code == 403 and "opens after your due time" in refused.content.decode()
    page = ada.get(f"/problems/{SLUG}/solution/").content.decode()
    assert 'data-testid="solution"' not in page and 'data-testid="solution-hidden"' in page
    assert not Progress.objects.filter(user=world.people[STUDENT], solution_viewed_at__isnull=False).exists()
    # A student of another course, and the course's staff, may still reveal it.
    assert signed_in(world.people[ANOTHER_STUDENT]).post(f"/problems/{SLUG}/solution/").status_code == 302
    # After the due time it opens.
    Assignment.objects.filter(pk=world.week.pk).update(due_at=world.now - timedelta(hours=1))
    assert ada.post(f"/problems/{SLUG}/solution/").status_code == 302
    assert 'data-testid="solution"' in ada.get(f"/problems/{SLUG}/solution/").content.decode()


def test_a_course_may_show_open_solutions_and_the_gradebook_marks_who_looked(world: World):
    Course.objects.filter(pk=world.course.pk).update(early_solutions=Course.EarlySolutions.SHOWN_AND_MARKED)
    ada = signed_in(world.people[STUDENT])
    assert ada.post(f"/problems/{SLUG}/solution/").status_code == 302
    assert 'data-testid="solution"' in ada.get(f"/problems/{SLUG}/solution/").content.decode()
    gradebook = signed_in(world.people[TA]).get("/courses/jax-101/gradebook/").content.decode()
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
    ta = signed_in(world.people[TA])
    for _ in range(Regrade.MAX_PER_WINDOW - Regrade.objects.filter(course=world.course).count()):
        assert ta.post("/courses/jax-101/regrade/", {"target": "week-1"}).status_code == 302
    refused = ta.post("/courses/jax-101/regrade/", {"target": "week-1"})
    assert refused.status_code == 429
    assert "asked for 10 regrades in the last 10 minutes" in refused.content.decode()
    assert Regrade.objects.filter(course=world.course).count() == Regrade.MAX_PER_WINDOW
    # Once the window has passed, the course may ask again.
    Regrade.objects.filter(course=world.course).update(requested_at=world.now - timedelta(minutes=11))
    assert ta.post("/courses/jax-101/regrade/", {"target": "week-1"}).status_code == 302
