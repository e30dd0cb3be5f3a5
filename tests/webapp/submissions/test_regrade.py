"""``manage.py regrade``: every submission of a problem goes back to the workers."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from tests.webapp.support.people import submission_of
from webapp.submissions.models import Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def graded(catalog: None, student: User) -> dict[str, Submission]:
    """A graded Submit and Run of aot_compiled_sum, and a graded Submit of another problem."""

    def make(slug: str, kind: str) -> Submission:
        return submission_of(student, slug, kind=kind, code="x = 1\n", verdict="accepted", attempt=1, task_id="")

    return {
        "submit": make("aot_compiled_sum", Submission.Kind.SUBMIT),
        "run": make("aot_compiled_sum", Submission.Kind.RUN),
        "other": make("compile_for", Submission.Kind.SUBMIT),
    }


def regrade(*args: str) -> str:
    out = StringIO()
    call_command("regrade", *args, stdout=out)
    return out.getvalue()


def assert_requeued(submission: Submission) -> None:
    submission.refresh_from_db()
    assert (submission.status, submission.attempt) == ("queued", 2)
    task = DBTaskResult.objects.get(id=submission.task_id)
    assert task.status == TaskResultStatus.READY
    assert task.args_kwargs["args"] == [submission.pk, 2]


def assert_untouched(submission: Submission) -> None:
    submission.refresh_from_db()
    assert (submission.status, submission.attempt, submission.task_id) == ("graded", 1, "")


def test_regrade_queues_every_submission_of_the_problem_again(graded):
    output = regrade("aot_compiled_sum")

    assert "queued 2 submission(s) of aot_compiled_sum" in output
    assert_requeued(graded["submit"])
    assert_requeued(graded["run"])
    assert_untouched(graded["other"])
    assert DBTaskResult.objects.count() == 2


def test_submits_only_leaves_runs_alone(graded):
    output = regrade("aot_compiled_sum", "--submits-only")

    assert "queued 1 submission(s)" in output
    assert_requeued(graded["submit"])
    assert_untouched(graded["run"])


def test_an_unknown_problem_is_refused_naming_the_known_ones(graded):
    with pytest.raises(CommandError) as refused:
        regrade("no_such_problem")

    message = str(refused.value)
    assert "'no_such_problem'" in message
    for slug in ("aot_compiled_sum", "compile_for", "jaxpr_primitives"):
        assert slug in message
    assert not DBTaskResult.objects.exists()
