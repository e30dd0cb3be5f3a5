"""What course staff decide after grading: points overridden by hand, with a reason and never
changed, and regrades of an assignment, a problem or one submission."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from tests.webapp.support.course_week import DUE, RELEASE, hand_in
from webapp.catalog.models import Problem
from webapp.courses.models import (
    Override,
    Regrade,
)
from webapp.submissions.models import Submission

pytestmark = pytest.mark.django_db


def test_an_override_replaces_the_points_and_the_latest_counts(assignment, client, gradebook):
    ta, ada, _ = gradebook
    item = assignment.items.get(problem__slug="batched_dot")
    Override.objects.create(item=item, user=ada, points=8, reason="regraded by hand", created_by=ta)
    Override.objects.create(item=item, user=ada, points=7, reason="a second look", created_by=ta)
    first, second = assignment.problem_scores(ada)
    assert (first.earned, first.override_reason) == (9.0, "")
    assert (second.earned, second.override_reason) == (7.0, "a second look")
    client.force_login(ta)
    page = client.get("/courses/jax-101/gradebook/").content.decode()
    ada_row = page[page.index("<td>ada</td>") : page.index("</tr>", page.index("<td>ada</td>"))]
    assert ">16</a>" in ada_row and '<span class="overridden">override</span>' in ada_row
    client.force_login(ada)
    # A sentence naming who set the points and why (the hand-in it replaces was on time: no
    # word of a late penalty).
    page = client.get("/courses/jax-101/week-1/").content.decode()
    assert f"7 points set by {ta.get_full_name() or ta.username}: a second look." in page
    assert "late penalty" not in page


@pytest.mark.parametrize(
    ("points", "reason", "message"),
    [(11, "too generous", "At most the problem"), (5, "  ", "Say why the points are set by hand.")],
)
def test_an_override_needs_a_reason_and_stays_within_the_problem_s_points(assignment, points, reason, message):
    ada = User.objects.create_user("ada")
    override = Override(item=assignment.items.first(), user=ada, points=points, reason=reason)
    with pytest.raises(ValidationError, match=message):
        override.full_clean()


def test_overrides_are_made_in_the_admin_by_whoever_is_signed_in_and_never_changed(
    assignment, admin_client, admin_user
):
    ada = User.objects.create_user("ada")
    item = assignment.items.first()
    response = admin_client.post(
        "/admin/courses/override/add/",
        {"item": item.pk, "user": ada.pk, "points": "4", "reason": "a late medical note"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    override = Override.objects.get()
    assert (override.created_by, override.points) == (admin_user, 4)
    admin_client.post(
        f"/admin/courses/override/{override.pk}/change/",
        {"item": item.pk, "user": ada.pk, "points": "10", "reason": "changed"},
    )
    admin_client.post(f"/admin/courses/override/{override.pk}/delete/", {"post": "yes"})
    override.refresh_from_db()
    assert (override.points, override.reason) == (4, "a late medical note")


def test_staff_regrade_an_assignment_a_problem_or_a_submission_and_see_how_far_it_got(client, assignment, gradebook):
    ta, ada, bob = gradebook
    before_release = hand_in(ada, "batched_dot", RELEASE - timedelta(days=1), 100.0)
    run = hand_in(ada, "batched_dot", DUE, 100.0)
    Submission.objects.filter(pk=run.pk).update(kind=Submission.Kind.RUN)
    staff_work = hand_in(ta, "batched_dot", DUE, 100.0)
    withdrawn = hand_in(bob, "aot_compiled_sum", DUE, 0.0, status=Submission.Status.CANCELLED)
    counted = set(
        Submission.objects.filter(kind=Submission.Kind.SUBMIT, user__in=[ada, bob])
        .exclude(pk__in=[before_release.pk, withdrawn.pk])
        .values_list("pk", flat=True)
    )
    client.force_login(ta)
    response = client.post("/courses/jax-101/regrade/", {"target": "week-1"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 202
    regrade = Regrade.objects.get(pk=response.json()["id"])
    assert set(regrade.submission_ids) == counted and regrade.requested_by == ta
    assert response.json() == {"id": regrade.pk, "scope": "Week 1", "ended": 0, "total": len(counted)}
    queued = Submission.objects.filter(pk__in=counted)
    assert set(queued.values_list("status", flat=True)) == {Submission.Status.QUEUED}
    for untouched in (before_release, run, staff_work, withdrawn):
        assert Submission.objects.get(pk=untouched.pk).status == untouched.status  # not queued again
    queued.filter(problem__slug="batched_dot").update(status=Submission.Status.GRADED, score=100.0)
    progress = client.get(f"/courses/jax-101/regrades/{regrade.pk}/").json()
    assert progress["ended"] == len(counted) - 1 and progress["total"] == len(counted)
    page = client.get("/courses/jax-101/gradebook/").content.decode()
    assert f"{len(counted) - 1} of {len(counted)}</span> graded again" in page and "by alan" in page

    by_problem = client.post("/courses/jax-101/regrade/", {"target": "week-1/batched_dot"})
    assert by_problem.status_code == 302 and by_problem["Location"] == "/courses/jax-101/gradebook/#regrades"
    latest = Regrade.objects.latest("requested_at", "id")
    assert latest.scope == f"Week 1: {Problem.objects.get(slug='batched_dot').title}"
    assert set(latest.submission_ids) == set(queued.filter(problem__slug="batched_dot").values_list("pk", flat=True))

    late_one = Submission.objects.get(user=ada, problem__slug="aot_compiled_sum")
    Submission.objects.filter(pk=late_one.pk).update(status=Submission.Status.GRADED)
    one = client.post("/courses/jax-101/regrade/", {"target": "week-1", "submission": late_one.pk})
    assert one.status_code == 302 and Regrade.objects.latest("requested_at", "id").submission_ids == [late_one.pk]

    for refused in ({"target": "nope"}, {"target": "week-1/compile_for"}, {"target": "week-1", "submission": "x"}):
        assert client.post("/courses/jax-101/regrade/", refused).status_code == 404, refused
    client.force_login(ada)
    assert client.post("/courses/jax-101/regrade/", {"target": "week-1"}).status_code == 403
    assert client.get(f"/courses/jax-101/regrades/{regrade.pk}/").status_code == 403
    assert client.get("/courses/jax-101/regrade/").status_code in (403, 405)
