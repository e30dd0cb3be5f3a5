"""The course pages: a student's standing, the gradebook, staff reading a student's work, and
each of them closed to whoever the course does not let in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from tests.webapp.support.course_week import DUE, RELEASE, hand_in
from tests.webapp.support.people import member
from webapp.accounts.models import Profile
from webapp.courses.models import (
    Assignment,
    Invitation,
    Override,
    Regrade,
    RosterUpload,
)
from webapp.submissions.models import Submission

pytestmark = pytest.mark.django_db


def test_a_student_sees_their_standing_with_the_late_mark(client, assignment, course_student):
    assignment.late_policy = Assignment.LatePolicy.PENALTY_PER_DAY
    assignment.save()
    ada = course_student
    hand_in(ada, "aot_compiled_sum", DUE + timedelta(hours=2), 100.0)
    client.force_login(ada)
    listing = client.get("/courses/").content.decode()
    assert "/courses/jax-101/" in listing
    course_page = client.get("/courses/jax-101/").content.decode()
    assert "/courses/jax-101/week-1/" in course_page and 'datetime="2026-09-08T23:59:00+00:00"' in course_page
    page = client.get("/courses/jax-101/week-1/").content.decode()
    assert "Your score: <strong>9</strong> of 20 points." in page
    assert '<time datetime="2026-09-08T23:59:00+00:00" title="UTC">2026-09-08 23:59 UTC</time>' in page
    assert "Late work: a penalty for each day or part of a day late, 10% a day; no grace period." in page
    assert '2026-09-09 01:59 UTC</time></a> <span class="late">late</span>' in page
    assert '<div class="score-note">Handed in 2 h after the due time, 1 day late: 10% off.</div>' in page
    # Each problem opens inside the assignment (its page names it and leads to its neighbours).
    assert 'href="/problems/aot_compiled_sum/?assignment=jax-101/week-1"' in page


def test_a_hand_in_near_the_due_time_shows_its_seconds_in_the_reader_s_zone(client, assignment, course_student):
    assignment.grace_minutes = 5
    assignment.save()
    Profile.set_time_zone(course_student, "Europe/Paris")
    hand_in(course_student, "aot_compiled_sum", DUE + timedelta(seconds=10), 100.0)
    client.force_login(course_student)
    page = client.get("/courses/jax-101/week-1/").content.decode()
    assert 'Due <time datetime="2026-09-08T23:59:00+00:00" title="Europe/Paris">2026-09-09 01:59 CEST</time>.' in page
    assert ">2026-09-09 01:59:10 CEST</time></a>" in page and '<span class="late">' not in page
    assert "Handed in 10 s after the due time, within the 5-minute grace: full credit." in page
    assert "a hand-in up to 5 minutes after the due time counts as on time" in page


def test_an_override_reads_as_a_sentence_that_says_whether_the_late_penalty_still_applies(
    client, assignment, course_student, owner
):
    assignment.late_policy = Assignment.LatePolicy.PENALTY_PER_DAY
    assignment.save()
    hand_in(course_student, "aot_compiled_sum", DUE + timedelta(hours=2), 100.0)  # late: 9 points
    hand_in(course_student, "batched_dot", DUE - timedelta(hours=2), 50.0)  # on time: 5 points
    first, second = assignment.items.order_by("position")
    Override.objects.create(item=first, user=course_student, points=8, reason="Checked by hand.", created_by=owner)
    Override.objects.create(item=second, user=course_student, points=Decimal("7.5"), reason="partial credit")
    client.force_login(course_student)
    page = client.get("/courses/jax-101/week-1/").content.decode()
    assert "8 points set by grace: Checked by hand; the late penalty no longer applies." in page
    assert "7.5 points set by the course staff: partial credit.</div>" in page
    assert "1 day late: 10% off" not in page  # the note of what the override replaced is not shown
    assert "Your score: <strong>15.50</strong> of 20 points." in page


def test_a_student_does_not_see_an_assignment_before_its_release(client, assignment, course_student, ta):
    assignment.release_at = datetime(2999, 1, 1, tzinfo=UTC)
    assignment.due_at = datetime(2999, 2, 1, tzinfo=UTC)
    assignment.save()
    client.force_login(course_student)
    assert "week-1" not in client.get("/courses/jax-101/").content.decode()
    assert client.get("/courses/jax-101/week-1/").status_code == 404
    client.force_login(ta)
    assert client.get("/courses/jax-101/week-1/").status_code == 200


def test_another_course_and_its_assignments_do_not_exist_for_a_student(
    client, assignment, other_assignment, course_student
):
    client.force_login(course_student)
    assert "jax-201" not in client.get("/courses/").content.decode()
    for url in ("/courses/jax-201/", "/courses/jax-201/final/", "/courses/jax-101/final/", "/courses/nope/"):
        assert client.get(url).status_code == 404, url


def test_the_course_pages_need_a_sign_in(client, assignment):
    for url in ("/courses/", "/courses/jax-101/", "/courses/jax-101/week-1/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), url


def test_staff_read_the_gradebook_with_late_and_extension_marks_by_section_and_as_csv(client, assignment, gradebook):
    ta, _, _ = gradebook
    client.force_login(ta)
    page = client.get("/courses/jax-101/gradebook/").content.decode()
    assert "2 students." in page
    ada_row = page[page.index("<td>ada</td>") : page.index("</tr>", page.index("<td>ada</td>"))]
    assert '>14</a> <span class="late">late</span>' in ada_row and "ext." not in ada_row
    bob_row = page[page.index("<td>=bob</td>") : page.index("</tr>", page.index("<td>=bob</td>"))]
    assert '>10</a> <span class="extended">ext.</span>' in bob_row and "late</span>" not in bob_row
    only_a = client.get("/courses/jax-101/gradebook/?section=A").content.decode()
    assert "<td>ada</td>" in only_a and "=bob" not in only_a
    csv_text = client.get("/courses/jax-101/gradebook/?format=csv").content.decode()
    assert csv_text.splitlines() == [
        "username,student_id,name,email,section,week-1,week-1 late,week-1 extension,total",
        "'=bob,,,,B,10,,extension,10",
        "ada,,,,A,14,late,,14",
    ]
    standing = client.get("/courses/jax-101/week-1/?student=ada").content.decode()
    assert "The standing of <strong>ada</strong>" in standing and "Score: <strong>14</strong>" in standing


def test_students_get_no_gradebook_and_no_one_else_s_standing(client, assignment, other_course, gradebook):
    ta, ada, _ = gradebook
    client.force_login(ada)
    assert client.get("/courses/jax-101/gradebook/").status_code == 403
    assert client.get("/courses/jax-201/gradebook/").status_code == 404
    page = client.get("/courses/jax-101/week-1/?student=%3Dbob").content.decode()
    assert "Your score: <strong>14</strong>" in page and "=bob" not in page
    client.force_login(ta)  # staff of one course are nobody in another
    assert client.get("/courses/jax-201/gradebook/").status_code == 404
    assert client.get("/courses/jax-101/week-1/?student=nobody").status_code == 404


def test_the_gradebook_shows_one_assignment_problem_by_problem_on_demand(client, assignment, gradebook):
    ta, ada, _ = gradebook
    client.force_login(ta)
    plain = client.get("/courses/jax-101/gradebook/").content.decode()
    assert "problem-column" not in plain
    page = client.get("/courses/jax-101/gradebook/?assignment=week-1").content.decode()
    assert page.count('<th class="problem-column"') == 2 and "1. aot_\u200bcompiled_\u200bsum" in page
    ada_row = page[page.index("<td>ada</td>") : page.index("</tr>", page.index("<td>ada</td>"))]
    late_one = Submission.objects.get(user=ada, problem__slug="aot_compiled_sum")
    assert f'/courses/jax-101/submissions/{late_one.pk}/">9</a> <span class="late">late</span>' in ada_row
    best = Submission.objects.filter(user=ada, problem__slug="batched_dot").order_by("-score").first()
    assert best is not None
    assert f'data-label="batched_dot"><a href="/courses/jax-101/submissions/{best.pk}/">5</a></td>' in ada_row
    csv_text = client.get("/courses/jax-101/gradebook/?assignment=week-1&format=csv").content.decode()
    assert csv_text.splitlines()[0].endswith(",week-1/aot_compiled_sum,week-1/batched_dot,total")
    assert csv_text.splitlines()[2] == "ada,,,,A,14,late,,9,5,14"
    assert "problem-column" not in client.get("/courses/jax-101/gradebook/?assignment=nope").content.decode()


def test_a_ta_reads_a_student_s_submission_through_the_course_and_nothing_else(
    client, assignment, other_course, gradebook
):
    ta, ada, bob = gradebook
    late_one = Submission.objects.get(user=ada, problem__slug="aot_compiled_sum")
    late_one.report = {"message": "", "tests": [], "hidden_output": "printed under the hidden tests"}
    late_one.save()
    elsewhere = hand_in(ada, "compile_for", DUE, 100.0)  # a problem of no assignment of the course
    practice = hand_in(ada, "batched_dot", RELEASE - timedelta(days=30), 100.0)  # before the release
    client.force_login(ta)
    standing = client.get("/courses/jax-101/week-1/?student=ada").content.decode()
    assert f'href="/courses/jax-101/submissions/{late_one.pk}/"' in standing
    page = client.get(f"/courses/jax-101/submissions/{late_one.pk}/").content.decode()
    assert "By <strong>ada</strong>" in page
    assert "printed under the hidden tests" not in page  # the hidden inputs are the site's staff's alone
    assert "Regrade this submission" in page
    assert client.get(f"/courses/jax-101/submissions/{elsewhere.pk}/").status_code == 404
    assert client.get(f"/courses/jax-101/submissions/{practice.pk}/").status_code == 404
    assert client.get(f"/courses/jax-201/submissions/{late_one.pk}/").status_code == 404
    assert client.get(f"/submissions/{late_one.pk}/").status_code == 404  # the site's own page: owner and site staff
    client.force_login(bob)  # a student reads no one else's work
    assert client.get(f"/courses/jax-101/submissions/{late_one.pk}/").status_code == 403


def test_every_course_view_that_takes_an_id_is_closed_to_another_course_s_student(
    client, assignment, other_course, other_assignment, course_student, outsider
):
    """Each URL of the courses app, filled with the ids of a course the student is not in (and
    of one they are in, where the view is staff's): a 403 or a 404, never the page."""
    from django.urls import URLPattern

    from webapp.courses import urls

    ada = course_student
    member(other_course, outsider)
    theirs = hand_in(outsider, "aot_compiled_sum", DUE, 100.0)
    mine = hand_in(ada, "aot_compiled_sum", DUE, 100.0)
    regrade = Regrade.objects.create(course=other_course, scope="Final", submission_ids=[theirs.pk])
    own_regrade = Regrade.objects.create(course=assignment.course, scope="Week 1", submission_ids=[mine.pk])
    upload = RosterUpload.objects.create(course=other_course, status="failed")
    own_upload = RosterUpload.objects.create(course=assignment.course, status="failed")
    invitation = Invitation.objects.create(course=other_course, username="x", email="x@example.org", expires_at=DUE)
    own_invitation = Invitation.objects.create(
        course=assignment.course, username="y", email="y@example.org", expires_at=DUE
    )
    filled = {
        "detail": ["/courses/jax-201/"],
        "gradebook": ["/courses/jax-201/gradebook/", "/courses/jax-101/gradebook/"],
        "statistics": ["/courses/jax-201/gradebook/statistics/", "/courses/jax-101/gradebook/statistics/"],
        "roster": ["/courses/jax-201/roster/", "/courses/jax-101/roster/"],
        "regrade": ["/courses/jax-201/regrade/", "/courses/jax-101/regrade/"],
        "regrade_progress": [
            f"/courses/jax-201/regrades/{regrade.pk}/",
            f"/courses/jax-101/regrades/{own_regrade.pk}/",
        ],
        "submission": [f"/courses/jax-201/submissions/{theirs.pk}/", f"/courses/jax-101/submissions/{mine.pk}/"],
        "assignment": ["/courses/jax-201/final/"],
        "roster_upload": [
            f"/courses/jax-201/roster/uploads/{upload.pk}/",
            f"/courses/jax-101/roster/uploads/{own_upload.pk}/",
        ],
        "roster_upload_resume": [
            f"/courses/jax-201/roster/uploads/{upload.pk}/resume/",
            f"/courses/jax-101/roster/uploads/{own_upload.pk}/resume/",
        ],
        "invitation_resend": [
            f"/courses/jax-201/roster/invitations/{invitation.pk}/resend/",
            f"/courses/jax-101/roster/invitations/{own_invitation.pk}/resend/",
        ],
        "member_role": ["/courses/jax-201/roster/members/eve/role/", "/courses/jax-101/roster/members/ada/role/"],
        "edit": ["/courses/jax-201/edit/", "/courses/jax-101/edit/"],
        "assignment_create": ["/courses/jax-201/assignments/new/", "/courses/jax-101/assignments/new/"],
        "assignment_edit": ["/courses/jax-201/final/edit/", "/courses/jax-101/week-1/edit/"],
        "extension": ["/courses/jax-201/students/eve/extension/", "/courses/jax-101/students/ada/extension/"],
        "override": ["/courses/jax-201/students/eve/override/", "/courses/jax-101/students/ada/override/"],
        "regrade_confirm": [
            "/courses/jax-201/regrade/confirm/?target=final",
            "/courses/jax-101/regrade/confirm/?target=week-1",
        ],
    }
    takes_an_id = [p.name for p in urls.urlpatterns if isinstance(p, URLPattern) and p.pattern.converters]
    # join and invitation take a secret, not an id: a wrong one is a 404 or a 410 page of its own.
    assert set(takes_an_id) - {"join", "invitation"} == set(filled), "a new course view needs its case here"
    client.force_login(ada)
    for name, paths in filled.items():
        for path in paths:
            for method in (client.get, client.post):
                assert method(path).status_code in (403, 404, 405), (name, path, method)
    assert client.get("/courses/join/not-a-code/").status_code == 404
    assert client.get("/courses/join/invited/not-a-token/").status_code == 410
    # The site's own views of a submission, for another course's student's work: none of it.
    from webapp.workspace.urls import submission_urls

    by_id = [p.name for p in submission_urls if isinstance(p, URLPattern) and "pk" in p.pattern.converters]
    assert set(by_id) == {"detail", "status", "cancel"}, "a new submission view needs its case here"
    for path in (f"/submissions/{theirs.pk}/", f"/submissions/{theirs.pk}/status/"):
        assert client.get(path).status_code == 404, path
    assert client.post(f"/submissions/{theirs.pk}/cancel/").status_code == 404


def test_the_course_page_leads_its_instructor_alone_to_its_set_up_never_to_the_admin(
    client, assignment, owner, ta, course_student
):
    for user, leads in ((owner, True), (ta, False), (course_student, False)):
        client.force_login(user)
        page = client.get("/courses/jax-101/").content.decode()
        assert ('href="/courses/jax-101/assignments/new/"' in page) == leads, user.username
        assert ('href="/courses/jax-101/week-1/edit/"' in page) == leads, user.username
        assert ('href="/courses/jax-101/edit/"' in page) == leads, user.username
        assert "/admin/" not in page
