"""Staff views in the admin: a submission's report is readable, its result cannot be edited by
hand, and regrading is an action whose progress shows in the list it leads to."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from tests.webapp.support.people import signed_in, submission_of
from webapp.submissions.models import Progress, Submission

pytestmark = pytest.mark.django_db

REPORT = {
    "verdict": "wrong_answer",
    "score": 50.0,
    "max_score": 100.0,
    "message": "1 of 2 tests failed.",
    "tests": [
        {"name": "test_visible_sum", "outcome": "passed", "points": 50.0, "message": "", "hidden": False},
        {
            "name": "test_every_dtype",
            "outcome": "failed",
            "points": 0.0,
            "message": "aot_compiled_sum(x) for x int8[3]: <expected int32, got int8>",
            "hidden": True,
        },
    ],
}


@pytest.fixture
def staff(admin_user: User) -> Client:
    return signed_in(admin_user)


@pytest.fixture
def graded(catalog: None, student: User) -> Submission:
    return submission_of(
        student,
        "aot_compiled_sum",
        code="def aot_compiled_sum(x):\n    return x.sum()\n",
        verdict="wrong_answer",
        score=50.0,
        max_score=100.0,
        report=REPORT,
        attempt=1,
    )


def test_a_submission_reads_as_a_table_of_its_tests(staff: Client, graded: Submission):
    page = staff.get(reverse("admin:submissions_submission_change", args=[graded.pk])).content.decode()
    assert "<th>test</th><th>kind</th><th>outcome</th>" in page
    assert "<code>test_every_dtype</code></td><td>hidden</td><td>failed</td>" in page
    # The message as the student saw it, escaped: the report is the sandbox's output.
    assert "&lt;expected int32, got int8&gt;" in page and "<expected int32" not in page
    assert "50 / 100" in page and "1 of 2 tests failed." in page
    assert '"tests": [' not in page  # not the raw JSON


def test_the_result_cannot_be_edited_by_hand(staff: Client, graded: Submission):
    url = reverse("admin:submissions_submission_change", args=[graded.pk])
    page = staff.get(url).content.decode()
    for field in ("verdict", "score", "max_score", "status", "report", "code"):
        assert f'name="{field}"' not in page, field
    staff.post(url, {"verdict": "accepted", "score": "100", "status": "graded", "code": "forged"})
    graded.refresh_from_db()
    assert (graded.verdict, graded.score, graded.status) == ("wrong_answer", 50.0, "graded")
    assert graded.code == "def aot_compiled_sum(x):\n    return x.sum()\n"
    assert staff.get(reverse("admin:submissions_submission_add")).status_code == 403


def test_regrading_queues_the_selection_and_shows_its_progress(staff: Client, graded: Submission, student: User):
    other = Submission.objects.create(
        user=student, problem=graded.problem, kind=Submission.Kind.RUN, code="x = 1\n", status="graded", attempt=1
    )
    untouched = Submission.objects.create(
        user=student, problem=graded.problem, kind=Submission.Kind.RUN, code="y = 2\n", status="graded", attempt=1
    )
    response = staff.post(
        reverse("admin:submissions_submission_changelist"),
        {"action": "regrade", "_selected_action": [graded.pk, other.pk]},
    )
    assert response.status_code == 302
    assert response["Location"].endswith(f"?id__in={graded.pk},{other.pk}")
    for submission in (graded, other):
        submission.refresh_from_db()
        assert (submission.status, submission.attempt, submission.verdict, submission.report) == ("queued", 2, "", None)
        task = DBTaskResult.objects.get(id=submission.task_id)
        assert task.status == TaskResultStatus.READY and task.args_kwargs["args"] == [submission.pk, 2]
    untouched.refresh_from_db()
    assert (untouched.status, untouched.attempt) == ("graded", 1)

    listing = staff.get(response["Location"]).content.decode()
    assert "Queued 2 submission(s) to be graded again" in listing
    assert listing.count('class="field-status">Queued<') == 2
    assert f'href="/admin/submissions/submission/{untouched.pk}/change/' not in listing


def test_progress_is_spelled_right_and_read_only(staff: Client, graded: Submission, student: User):
    Progress.refresh(student.pk, graded.problem.pk)
    index = staff.get(reverse("admin:index")).content.decode()
    assert "Progresss" not in index and ">Progress<" in index
    progress = Progress.objects.get(user=student)
    assert staff.get(reverse("admin:submissions_progress_add")).status_code == 403
    page = staff.get(reverse("admin:submissions_progress_change", args=[progress.pk])).content.decode()
    assert 'name="solved_at' not in page
