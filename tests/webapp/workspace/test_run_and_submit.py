"""Run and Submit: queued with a task and the code kept as the draft, their limits, who sees a
submission, and drafts."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from tests.webapp.support.submitting import SLUG, SOME_CODE, ago, make_submission, post, task_of
from webapp.courses.instructors import make_instructor
from webapp.submissions.models import Draft, Progress, Submission

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("action", ["run", "submit"])
def test_a_run_or_submit_is_queued_with_a_task_and_the_code_kept_as_the_draft(student_client, student, action):
    response = post(student_client, action, SOME_CODE)

    assert response.status_code == 202
    data = response.json()
    assert data["status"] == "queued"
    assert data["status_url"] == reverse("submissions:status", args=[data["id"]])
    submission = Submission.objects.get(pk=data["id"])
    assert (submission.user, submission.problem.slug, submission.kind) == (student, SLUG, action)
    assert submission.attempt == 1 and submission.code == SOME_CODE
    task = task_of(submission)
    assert task.queue_name == "default"
    assert task.status == TaskResultStatus.READY
    assert task.args_kwargs["args"] == [submission.pk, 1]
    assert Draft.objects.get(user=student, problem__slug=SLUG).code == SOME_CODE
    progress = Progress.objects.get(user=student, problem__slug=SLUG)
    assert progress.attempted_at is not None and progress.solved_at is None


def test_without_asking_for_json_a_submit_redirects_to_its_page(student_client):
    response = post(student_client, "submit", SOME_CODE, as_json=False)

    submission = Submission.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("submissions:detail", args=[submission.pk])
    page = student_client.get(response.url)
    assert page.status_code == 200 and "queued" in page.content.decode()


def test_anonymous_visitors_are_sent_to_sign_in_and_nothing_is_queued(client, catalog):
    response = post(client, "run", SOME_CODE)

    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert not Submission.objects.exists() and not DBTaskResult.objects.exists()


@pytest.mark.parametrize("action", ["run", "submit"])
def test_run_and_submit_refuse_get(student_client, action):
    assert student_client.get(reverse(f"submissions:{action}", args=[SLUG])).status_code == 405


def test_a_post_without_a_csrf_token_is_forbidden(catalog, student):
    client = Client(enforce_csrf_checks=True)
    client.force_login(student)

    assert post(client, "submit", SOME_CODE).status_code == 403
    assert not Submission.objects.exists()


def test_oversized_code_is_413_naming_the_limit_and_empty_code_is_400(student_client, settings):
    settings.MAX_CODE_BYTES = 100

    too_big = post(student_client, "submit", "x = 1\n" + "#" * 100)
    assert too_big.status_code == 413
    assert "the limit is 100 bytes" in too_big.json()["error"]
    assert post(student_client, "submit", "  \n ").status_code == 400
    assert not Submission.objects.exists()


def test_the_submission_over_the_rate_limit_is_429(student_client, settings):
    settings.RATE_LIMIT_PER_MINUTE = 2
    settings.MAX_PENDING = 100

    assert [post(student_client, "run", SOME_CODE).status_code for _ in range(2)] == [202, 202]
    refused = post(student_client, "run", SOME_CODE)
    assert refused.status_code == 429
    assert "At most 2 runs and submissions a minute" in refused.json()["error"]
    assert Submission.objects.count() == 2
    # A minute later the student may go on.
    Submission.objects.update(created_at=ago(61))
    assert post(student_client, "run", SOME_CODE).status_code == 202


def test_a_submission_while_too_many_are_pending_is_429(student_client, settings):
    settings.MAX_PENDING = 1

    first = post(student_client, "submit", SOME_CODE)
    assert first.status_code == 202
    refused = post(student_client, "submit", SOME_CODE)
    assert refused.status_code == 429
    assert "wait for one to finish" in refused.json()["error"]
    # Once the first is graded there is room again.
    Submission.objects.filter(pk=first.json()["id"]).update(status=Submission.Status.GRADED)
    assert post(student_client, "submit", SOME_CODE).status_code == 202


def test_only_the_owner_and_staff_see_a_submission(client, catalog, student, django_user_model):
    submission = make_submission(
        student,
        status=Submission.Status.GRADED,
        verdict="wrong_answer",
        report={"tests": [{"name": "test_sums", "outcome": "failed", "hidden": False}], "message": "no"},
    )
    pages = [reverse("submissions:detail", args=[submission.pk]), reverse("submissions:status", args=[submission.pk])]

    client.force_login(django_user_model.objects.create_user("eve", password="a-long-password-2"))
    assert [client.get(url).status_code for url in pages] == [404, 404]

    client.force_login(student)
    assert [client.get(url).status_code for url in pages] == [200, 200]
    data = client.get(pages[1]).json()
    assert (data["status"], data["verdict"], data["finished"]) == ("graded", "wrong_answer", True)
    assert data["verdict_label"] == "Wrong answer"
    assert [test["name"] for test in data["tests"]] == ["test_sums"]

    # A course's instructor is staff in the admin for their courses, never a reader of everyone's work.
    instructor = django_user_model.objects.create_user("grace", password="a-long-password-4")
    make_instructor(instructor)
    client.force_login(instructor)
    assert [client.get(url).status_code for url in pages] == [404, 404]

    client.force_login(django_user_model.objects.create_superuser("root", password="a-long-password-3"))
    assert [client.get(url).status_code for url in pages] == [200, 200]


def test_a_saved_draft_replaces_the_starter_on_the_problem_page(student_client, student, settings):
    problem_page = reverse("catalog:detail", args=[SLUG])
    draft = "def aot_compiled_sum(x):\n    return 12345  # my draft\n"
    assert "write aot_compiled_sum" in student_client.get(problem_page).content.decode()  # the starter

    response = student_client.post(reverse("submissions:draft", args=[SLUG]), {"code": draft})

    assert response.status_code == 204
    assert Draft.objects.get(user=student).code == draft
    page = student_client.get(problem_page).content.decode()
    assert "return 12345  # my draft" in page
    assert "write aot_compiled_sum" not in page

    settings.MAX_CODE_BYTES = 10
    oversized = student_client.post(reverse("submissions:draft", args=[SLUG]), {"code": "x" * 11})
    assert oversized.status_code == 413
    assert Draft.objects.get(user=student).code == draft
