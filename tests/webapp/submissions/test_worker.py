"""A grading worker killed with SIGKILL in the middle of a grading loses nothing.

The site runs as ``make run`` runs it (``python -m webapp.serve``: gunicorn, a supervised
grading worker, real sandboxes and JAX) on this test's database. The test kills the worker
that holds a submission; the supervisor starts a new one, which finds the submission's
heartbeat silent, gives it a second attempt, and grades it: one verdict, nothing dropped.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from typing import TypeVar

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from grader.problem import load_problem
from tests.conftest import sandbox_processes
from tests.webapp.support.running_site import RunningSite, this_tests_database
from webapp.catalog.models import Problem
from webapp.submissions.models import Progress, Submission

pytestmark = pytest.mark.django_db(transaction=True)

T = TypeVar("T")
STALLED_AFTER_S = 3
# Long enough to be sure the kill lands while the submission is being graded.
SLOW_TO_LOAD = "import time\ntime.sleep(3)\n"


def wait_for(condition: Callable[[], T | bool | None], timeout: float, what: str) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value  # type: ignore[return-value]
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def current(submission: Submission) -> Submission:
    return Submission.objects.get(pk=submission.pk)


@pytest.mark.slow
def test_a_worker_killed_mid_grade_loses_nothing_and_the_submission_gets_one_verdict(
    catalog: None, student: User
) -> None:
    code = SLOW_TO_LOAD + load_problem("aot_compiled_sum").reference_solution.read_text()
    site = RunningSite(
        this_tests_database(),
        setup=False,
        extra_env={"JAXJUDGE_STALLED_AFTER_S": str(STALLED_AFTER_S)},
    )
    try:
        with transaction.atomic():
            submission = Submission.objects.create(
                user=student, problem=Problem.objects.get(slug="aot_compiled_sum"), kind="submit", code=code
            )
            submission.enqueue()

        running = wait_for(
            lambda: (s := current(submission)).status == Submission.Status.RUNNING and s, 60, "the grading to start"
        )
        worker_pid = int(running.worker.rsplit(":", 1)[1])
        assert worker_pid != site.process.pid
        os.kill(worker_pid, signal.SIGKILL)

        # The killed worker's sandboxes go with it (bwrap --die-with-parent): none is left orphaned.
        wait_for(lambda: not sandbox_processes(), 10, "the killed worker's sandboxes to end")

        graded = wait_for(lambda: (s := current(submission)).finished and s, 120, "the submission to be graded again")
        assert graded.status == Submission.Status.GRADED
        assert graded.verdict == "accepted"
        assert graded.attempt == 2, "graded by exactly one more attempt"
        assert graded.worker != running.worker, "by another worker"
        assert any("starting it again" in line for line in site.lines), "the supervisor replaced the worker"

        # One verdict: the killed attempt's task was failed, the second one succeeded, nothing else ran.
        def task_statuses() -> list[str]:
            tasks = DBTaskResult.objects.filter(args_kwargs__args__0=submission.pk).order_by("enqueued_at")
            return [task.status for task in tasks]

        # The worker writes its task's row once the grading function has returned, a moment after
        # the verdict it wrote: wait for that row, then read what every task came to.
        wait_for(lambda: TaskResultStatus.RUNNING not in task_statuses(), 30, "the second task's row to be written")
        assert task_statuses() == [TaskResultStatus.FAILED, TaskResultStatus.SUCCESSFUL]
        assert Progress.objects.get(user=student).solved_at is not None
    finally:
        site.stop()


def test_a_worker_that_cannot_make_cgroups_refuses_to_start_unless_allowed(monkeypatch, tmp_path, caplog):
    from django.core.management import CommandError, call_command

    from sandbox.host.cgroups import cgroups_usable
    from webapp.submissions.management.commands.worker import Command

    monkeypatch.setattr("sandbox.host.cgroups.CGROUP_ROOT", tmp_path)  # no controller can be enabled here
    assert not cgroups_usable()
    with pytest.raises(
        CommandError,
        match=r"will not start: sandboxes cannot get cgroups.*without a process cap.*--allow-unenforced-limits",
    ):
        call_command("worker", "--max-tasks", "0")
    # Allowed by the operator: it goes on, and says what is lost.
    Command.check_limits_are_enforced("cpu", allowed_not_to=True)
    assert "without a process cap" in caplog.text


def test_the_site_says_once_why_its_workers_could_not_start(monkeypatch, tmp_path, capsys):
    from webapp import serve

    monkeypatch.setattr("sandbox.host.cgroups.CGROUP_ROOT", tmp_path)
    monkeypatch.delenv("JAXJUDGE_ALLOW_UNENFORCED_LIMITS", raising=False)
    assert serve.main(["--no-setup"]) == 2
    assert "sandboxes cannot get cgroups" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may make cgroups on this machine")
def test_cgroups_are_usable_here_and_the_probe_leaves_nothing_behind():
    from sandbox.host.cgroups import CGROUP_ROOT, PARENT_NAME, cgroups_usable

    before = set((CGROUP_ROOT / PARENT_NAME).glob("sandbox-*"))
    assert cgroups_usable()  # this machine's tests run as root, with cgroup v2
    assert set((CGROUP_ROOT / PARENT_NAME).glob("sandbox-*")) == before


def assign(course, slug: str, problems: list[str], *, released_days: float, due_days: float):
    from datetime import timedelta

    from django.utils import timezone

    from webapp.courses.models import Assignment, AssignmentProblem

    now = timezone.now()
    assignment = Assignment.objects.create(
        course=course,
        slug=slug,
        title=slug,
        release_at=now + timedelta(days=released_days),
        due_at=now + timedelta(days=due_days),
    )
    for position, problem in enumerate(problems):
        AssignmentProblem.objects.create(
            assignment=assignment, problem=Problem.objects.get(slug=problem), position=position
        )
    return assignment


def test_a_worker_warms_the_open_assignments_problems_then_the_most_used(catalog, course, student):
    from webapp.submissions.management.commands.worker import problems_to_warm

    assign(course, "later", ["compile_for", "batched_dot"], released_days=-1, due_days=5)
    assign(course, "sooner", ["count_traces"], released_days=-2, due_days=1)
    assign(course, "closed", ["scan_cumsum"], released_days=-9, due_days=-1)
    assign(course, "unreleased", ["static_power"], released_days=1, due_days=9)
    for slug, times in (("stable_softplus", 3), ("compile_for", 5), ("positive_sum", 1)):
        for _ in range(times):
            Submission.objects.create(user=student, problem=Problem.objects.get(slug=slug), kind="submit", code="")
    assert problems_to_warm(most_used=2) == ["count_traces", "batched_dot", "compile_for", "stable_softplus"]


@pytest.mark.slow
def test_a_worker_just_started_has_its_open_assignments_problems_warmed(catalog, course, sandboxes):
    from django.core.management import call_command

    from grader.reference import loaded_references
    from webapp import grading

    assign(course, "open", ["aot_compiled_sum"], released_days=-1, due_days=1)
    assign(course, "closed", ["jaxpr_primitives"], released_days=-9, due_days=-1)
    call_command("worker", "--max-tasks", "0", "--allow-unenforced-limits")
    # Warmed: graded once with its reference in this process, which keeps that reference and
    # its answers; the closed assignment's problem was not.
    assert "aot_compiled_sum" in grading.warmed_problems()
    assert "aot_compiled_sum" in loaded_references()
    assert "jaxpr_primitives" not in grading.warmed_problems()
