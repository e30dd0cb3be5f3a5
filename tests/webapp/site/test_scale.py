"""Many workers on PostgreSQL: every submission graded exactly once, under load and faults.

These run on the throwaway PostgreSQL server of ``python -m tests.postgres`` (``make test``
starts one); on SQLite they are skipped. The workers are real (``python -m webapp.serve``
with N grading workers, real sandboxes and JAX). Most submissions of the big batch are
syntax errors, which a worker grades in milliseconds without a sandbox: that puts the claim
race between the workers at its fastest, which is what exactly-once is about. The right and
wrong solutions among them go through the sandbox as any submission does.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import DatabaseError, connection, transaction
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from grader.problem import load_problem, solutions_dir
from tests.postgres import cluster_of_this_run
from tests.webapp.support.running_site import RunningSite, this_tests_database
from webapp.catalog.models import Problem
from webapp.submissions.models import Submission

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        cluster_of_this_run() is None,
        reason="needs the throwaway PostgreSQL server: python -m tests.postgres tests/webapp/site/test_scale.py",
    ),
]

SLUG = "aot_compiled_sum"
SYNTAX_ERROR = "def aot_compiled_sum(x:\n    return x\n"


def solutions() -> dict[str, str]:
    """Code by the verdict it must get."""
    return {
        "accepted": load_problem(SLUG).reference_solution.read_text(),
        "wrong_answer": (solutions_dir() / SLUG / "wrong_value.py").read_text(),
        "syntax_error": SYNTAX_ERROR,
    }


def enqueue_all(student: User, expected: list[str]) -> list[Submission]:
    """One submission per expected verdict, all queued in one transaction."""
    code = solutions()
    problem = Problem.objects.get(slug=SLUG)
    with transaction.atomic():
        submissions = [
            Submission.objects.create(user=student, problem=problem, kind="submit", code=code[verdict])
            for verdict in expected
        ]
        for submission in submissions:
            submission.enqueue()
    return submissions


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition``, riding out the moments the database is away."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except DatabaseError:
            connection.close()
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def health(site: RunningSite) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(site.url + "/healthz", timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def unfinished() -> int:
    return Submission.objects.exclude(status__in=[Submission.Status.GRADED, Submission.Status.FAILED]).count()


def verdicts_written(submission: Submission) -> list[str]:
    """What each task run for this submission wrote: a verdict, or 'superseded' when it wrote nothing."""
    tasks = DBTaskResult.objects.filter(args_kwargs__args__0=submission.pk)
    return [str(t.return_value) for t in tasks if t.status == TaskResultStatus.SUCCESSFUL]


def assert_each_graded_once(submissions: list[Submission], expected: list[str]) -> None:
    for submission, verdict in zip(submissions, expected, strict=True):
        submission.refresh_from_db()
        assert (submission.status, submission.verdict) == (Submission.Status.GRADED, verdict), submission.pk
        written = [v for v in verdicts_written(submission) if v != "superseded"]
        assert written == [verdict], f"submission {submission.pk}: verdicts written {written}"


def test_200_submissions_drained_by_4_workers_are_each_graded_exactly_once(catalog: None, student: User) -> None:
    expected = ["accepted" if i % 50 == 0 else "wrong_answer" if i % 50 == 25 else "syntax_error" for i in range(200)]
    submissions = enqueue_all(student, expected)
    site = RunningSite(this_tests_database(), setup=False, graders=4)
    try:
        assert health(site) == (200, {"status": "ok", "database": "ok", "workers": {"default": 4}})
        wait_until(lambda: unfinished() == 0, 300, "200 submissions to be graded")
    finally:
        site.stop()

    assert_each_graded_once(submissions, expected)
    assert set(Submission.objects.values_list("attempt", flat=True)) == {1}, "no submission needed a second attempt"
    assert DBTaskResult.objects.count() == 200, "one task per submission"
    # All four workers took part: the claim race was real.
    workers = Counter(Submission.objects.values_list("worker", flat=True))
    assert len(workers) == 4, workers


def test_a_database_restart_mid_batch_loses_nothing(catalog: None, student: User) -> None:
    cluster = cluster_of_this_run()
    assert cluster is not None
    expected = ["accepted", "wrong_answer", "syntax_error", "syntax_error"] * 8
    site = RunningSite(this_tests_database(), setup=False, graders=2)
    try:
        submissions = enqueue_all(student, expected)
        wait_until(lambda: unfinished() <= len(expected) - 6, 120, "the batch to be under way")
        assert unfinished() > 0, "the batch ended before the restart"

        connection.close()
        cluster.stop()  # every connection is cut
        assert health(site) == (503, {"status": "unavailable", "database": "unreachable"})
        cluster.start()
        restarted_with = unfinished()

        wait_until(lambda: unfinished() == 0, 300, "the rest of the batch to be graded")
    finally:
        site.stop()

    assert restarted_with > 0
    assert_each_graded_once(submissions, expected)
    # What a worker logs when the outage reaches it: its queue poll, a verdict or a test's
    # progress it could not write yet, a heartbeat it could not record.
    seen_going = ("database unreachable", "could not be written", "heartbeat not recorded")
    assert any(words in line for line in site.lines for words in seen_going), "the workers saw the database go"
