"""Run and Submit, their limits, privacy, drafts, the solution gate, progress, and the grading queue."""

from __future__ import annotations

import ast
import html
import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from grader.problem import load_problem, solutions_dir
from webapp import grading
from webapp.catalog.models import Problem
from webapp.courses.instructors import make_instructor
from webapp.submissions.models import Draft, Progress, Submission

pytestmark = pytest.mark.django_db

SLUG = "aot_compiled_sum"
REFERENCE_LINE = "compiled = jax.jit(jnp.sum).lower(x).compile()"
SOME_CODE = "import jax\n\n\ndef aot_compiled_sum(x):\n    return x.sum()\n"
JSON = {"accept": "application/json"}


@pytest.fixture
def signed_in(client: Client, catalog: None, student: User) -> Client:
    client.force_login(student)
    return client


def post(client: Client, action: str, code: str, *, slug: str = SLUG, as_json: bool = True) -> Any:
    headers = JSON if as_json else {}
    return client.post(reverse(f"submissions:{action}", args=[slug]), {"code": code}, headers=headers)


def make_submission(
    user: User, kind: str = Submission.Kind.SUBMIT, slug: str = SLUG, code: str = SOME_CODE, **fields: Any
) -> Submission:
    problem = Problem.objects.get(slug=slug)
    return Submission.objects.create(user=user, problem=problem, kind=kind, code=code, **fields)


def task_of(submission: Submission) -> DBTaskResult:
    submission.refresh_from_db()
    return DBTaskResult.objects.get(id=submission.task_id)


def ago(seconds: float) -> Any:
    return timezone.now() - timedelta(seconds=seconds)


# Run and Submit


@pytest.mark.parametrize("action", ["run", "submit"])
def test_a_run_or_submit_is_queued_with_a_task_and_the_code_kept_as_the_draft(signed_in, student, action):
    response = post(signed_in, action, SOME_CODE)

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


def test_without_asking_for_json_a_submit_redirects_to_its_page(signed_in):
    response = post(signed_in, "submit", SOME_CODE, as_json=False)

    submission = Submission.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("submissions:detail", args=[submission.pk])
    page = signed_in.get(response.url)
    assert page.status_code == 200 and "queued" in page.content.decode()


def test_anonymous_visitors_are_sent_to_sign_in_and_nothing_is_queued(client, catalog):
    response = post(client, "run", SOME_CODE)

    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert not Submission.objects.exists() and not DBTaskResult.objects.exists()


@pytest.mark.parametrize("action", ["run", "submit"])
def test_run_and_submit_refuse_get(signed_in, action):
    assert signed_in.get(reverse(f"submissions:{action}", args=[SLUG])).status_code == 405


def test_a_post_without_a_csrf_token_is_forbidden(catalog, student):
    client = Client(enforce_csrf_checks=True)
    client.force_login(student)

    assert post(client, "submit", SOME_CODE).status_code == 403
    assert not Submission.objects.exists()


def test_oversized_code_is_413_naming_the_limit_and_empty_code_is_400(signed_in, settings):
    settings.MAX_CODE_BYTES = 100

    too_big = post(signed_in, "submit", "x = 1\n" + "#" * 100)
    assert too_big.status_code == 413
    assert "the limit is 100 bytes" in too_big.json()["error"]
    assert post(signed_in, "submit", "  \n ").status_code == 400
    assert not Submission.objects.exists()


def test_the_submission_over_the_rate_limit_is_429(signed_in, settings):
    settings.RATE_LIMIT_PER_MINUTE = 2
    settings.MAX_PENDING = 100

    assert [post(signed_in, "run", SOME_CODE).status_code for _ in range(2)] == [202, 202]
    refused = post(signed_in, "run", SOME_CODE)
    assert refused.status_code == 429
    assert "At most 2 runs and submissions a minute" in refused.json()["error"]
    assert Submission.objects.count() == 2
    # A minute later the student may go on.
    Submission.objects.update(created_at=ago(61))
    assert post(signed_in, "run", SOME_CODE).status_code == 202


def test_a_submission_while_too_many_are_pending_is_429(signed_in, settings):
    settings.MAX_PENDING = 1

    first = post(signed_in, "submit", SOME_CODE)
    assert first.status_code == 202
    refused = post(signed_in, "submit", SOME_CODE)
    assert refused.status_code == 429
    assert "wait for one to finish" in refused.json()["error"]
    # Once the first is graded there is room again.
    Submission.objects.filter(pk=first.json()["id"]).update(status=Submission.Status.GRADED)
    assert post(signed_in, "submit", SOME_CODE).status_code == 202


# Privacy


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


# Drafts


def test_a_saved_draft_replaces_the_starter_on_the_problem_page(signed_in, student, settings):
    problem_page = reverse("catalog:detail", args=[SLUG])
    draft = "def aot_compiled_sum(x):\n    return 12345  # my draft\n"
    assert "write aot_compiled_sum" in signed_in.get(problem_page).content.decode()  # the starter

    response = signed_in.post(reverse("submissions:draft", args=[SLUG]), {"code": draft})

    assert response.status_code == 204
    assert Draft.objects.get(user=student).code == draft
    page = signed_in.get(problem_page).content.decode()
    assert "return 12345  # my draft" in page
    assert "write aot_compiled_sum" not in page

    settings.MAX_CODE_BYTES = 10
    oversized = signed_in.post(reverse("submissions:draft", args=[SLUG]), {"code": "x" * 11})
    assert oversized.status_code == 413
    assert Draft.objects.get(user=student).code == draft


# The solution gate and progress


def test_the_solution_is_hidden_until_the_student_reveals_it(client, catalog, student):
    url = reverse("submissions:solution", args=[SLUG])
    anonymous = client.get(url)
    assert anonymous.status_code == 302 and anonymous.url.startswith(reverse("login"))

    client.force_login(student)
    before = page_text(client.get(url).content.decode())
    assert REFERENCE_LINE not in before
    assert "Reveal the solution" in before

    revealed = client.post(url)

    assert revealed.status_code == 302 and revealed.url == url
    assert Progress.objects.get(user=student, problem__slug=SLUG).solution_viewed_at is not None
    after = page_text(client.get(url).content.decode())
    assert REFERENCE_LINE in after  # highlighted: its words in spans of their own
    assert "Reveal the solution" not in after


def page_text(page: str) -> str:
    """What a page reads as, tags taken out."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_after_solving_the_solution_is_an_editorial_with_the_students_code_and_the_next_problem(
    client, catalog, student
):
    insight = {"artifacts": {"cost": {"flops": 4.0}}, "reference": {"cost": {"flops": 3.0}}}
    accepted = make_submission(
        student,
        code="def aot_compiled_sum(x):\n    return my_own_way(x)\n",
        status=Submission.Status.GRADED,
        verdict="accepted",
        report={"insight": insight, "tests": []},
    )
    Progress.refresh(student.pk, accepted.problem_id)
    client.force_login(student)
    page = client.get(reverse("submissions:solution", args=[SLUG])).content.decode()
    text = page_text(page)
    assert REFERENCE_LINE in text and "return my_own_way(x)" in text
    assert 'class="highlight"' in page  # both highlighted
    why = ast.get_docstring(ast.parse(load_problem(SLUG).reference_solution.read_text()))
    assert why and " ".join(why.split()[:6]) in " ".join(text.split())
    assert "What each compiled to" in text and "4 FLOPs" in " ".join(text.split())
    ordered = list(Problem.objects.all())
    following = ordered[[problem.slug for problem in ordered].index(SLUG) + 1]
    assert f'href="{reverse("catalog:detail", args=[following.slug])}"' in page
    assert f"Next in the course: {following.title}" in " ".join(text.split())


@pytest.mark.parametrize(
    ("viewed_minutes_after_submit", "state"),
    [(-5, "solved after viewing the solution"), (5, "solved")],
)
def test_solving_after_viewing_the_solution_is_marked_as_such(catalog, student, viewed_minutes_after_submit, state):
    start = timezone.now() - timedelta(hours=1)
    # An accepted Run before anything else does not count as solving the problem.
    early_run = make_submission(student, Submission.Kind.RUN, status=Submission.Status.GRADED, verdict="accepted")
    accepted = make_submission(student, status=Submission.Status.GRADED, verdict="accepted")
    Submission.objects.filter(pk=early_run.pk).update(created_at=start - timedelta(minutes=30))
    Submission.objects.filter(pk=accepted.pk).update(created_at=start)
    problem = Problem.objects.get(slug=SLUG)
    Progress.objects.create(
        user=student, problem=problem, solution_viewed_at=start + timedelta(minutes=viewed_minutes_after_submit)
    )

    Progress.refresh(student.pk, problem.pk)

    progress = Progress.objects.get(user=student, problem=problem)
    assert progress.solved_at == start
    assert progress.attempted_at == start - timedelta(minutes=30)
    assert progress.state == state


def test_the_problem_list_marks_the_problems_the_student_attempted(signed_in):
    assert post(signed_in, "run", SOME_CODE).status_code == 202

    page = signed_in.get(reverse("catalog:list")).content.decode()

    assert f'<td class="mark" data-slug="{SLUG}" data-status="attempted">attempted</td>' in page
    assert '<td class="mark" data-slug="compile_for" data-status="not attempted">not attempted</td>' in page


# Grading, for real: in this process, in the bwrap sandbox, with JAX. Committed transactions,
# so that the heartbeat thread (a connection of its own) can write while the grading runs.


def grade(user: User, kind: str, code: str) -> Submission:
    submission = make_submission(user, kind, code=code)
    submission.enqueue()
    Submission.grade_attempt(submission.pk, submission.attempt)
    submission.refresh_from_db()
    return submission


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_reference_solution_is_accepted_and_solves_the_problem(catalog, student, sandboxes):
    reference = load_problem(SLUG).reference_solution.read_text()

    submission = grade(student, Submission.Kind.SUBMIT, reference)

    assert (submission.status, submission.verdict) == ("graded", "accepted")
    assert submission.score == submission.max_score == 100.0
    assert submission.report is not None and submission.report["tests"]
    assert all(test["outcome"] == "passed" for test in submission.report["tests"])
    assert any(test["hidden"] for test in submission.report["tests"])
    assert submission.finished_at is not None and submission.heartbeat_at is None
    assert Progress.objects.get(user=student, problem__slug=SLUG).solved_at == submission.created_at


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_wrong_solution_gets_wrong_answer_with_the_failing_tests(catalog, student, sandboxes):
    wrong = (solutions_dir() / SLUG / "wrong_value.py").read_text()

    submission = grade(student, Submission.Kind.SUBMIT, wrong)

    assert (submission.status, submission.verdict) == ("graded", "wrong_answer")
    assert submission.report is not None
    assert any(test["outcome"] == "failed" for test in submission.report["tests"])
    assert submission.score is not None and submission.score < 100.0
    assert Progress.objects.get(user=student, problem__slug=SLUG).solved_at is None


@pytest.mark.django_db(transaction=True)
def test_a_run_is_graded_on_the_visible_tests_only_and_solves_nothing(catalog, student, sandboxes):
    reference = load_problem(SLUG).reference_solution.read_text()

    submission = grade(student, Submission.Kind.RUN, reference)

    assert (submission.status, submission.verdict) == ("graded", "accepted")
    assert submission.report is not None and submission.report["tests"]
    assert [test["hidden"] for test in submission.report["tests"]] == [False] * len(submission.report["tests"])
    assert Progress.objects.get(user=student, problem__slug=SLUG).solved_at is None


@pytest.mark.django_db(transaction=True)
def test_while_graded_the_status_says_which_tests_have_ended_and_only_what_changed(
    client, catalog, student, sandboxes, monkeypatch
):
    # A real grading, watched as the page watches it: the status is asked for at each test's end.
    client.force_login(student)
    wrong = (solutions_dir() / SLUG / "wrong_value.py").read_text()
    submission = make_submission(student, Submission.Kind.SUBMIT, code=wrong)
    submission.enqueue()
    url = reverse("submissions:status", args=[submission.pk])
    polls: list[dict[str, Any]] = []
    grade_code = grading.grade_code

    def watched(*args: Any, on_test: Any, **kwargs: Any) -> dict[str, Any]:
        def ended(test: dict[str, Any]) -> None:
            on_test(test)
            shown = polls[-1]["tests_ended"] if polls else 0
            polls.append(client.get(url, {"since": shown}).json())

        return grade_code(*args, on_test=ended, **kwargs)

    monkeypatch.setattr(grading, "grade_code", watched)
    Submission.grade_attempt(submission.pk, submission.attempt)

    report = Submission.objects.get(pk=submission.pk).report
    assert report is not None and len(polls) == len(report["tests"]) > 1
    for count, poll in enumerate(polls, start=1):
        # Each poll carries the one test that ended since the one before, never the whole result.
        assert poll["status"] == "running" and not poll["finished"] and poll["tests_ended"] == count
        assert set(poll) == {"id", "status", "finished", "tests_ended", "tests"} and len(poll["tests"]) == 1
    ended = [poll["tests"][0] for poll in polls]
    assert [(t["name"], t["outcome"], t["hidden"]) for t in ended] == [
        (t["name"], t["outcome"], t["hidden"]) for t in report["tests"]
    ]
    assert [t["hidden"] for t in ended] == sorted(t["hidden"] for t in ended)  # visible tests first
    assert all("points" not in t for t in ended)  # scored only once all have ended
    assert any(t["outcome"] == "failed" and t["message"] for t in ended)
    # Once finished, the status is the whole result, rendered, whatever the page had seen.
    final = client.get(url, {"since": len(polls)}).json()
    assert final["finished"] and final["verdict"] == "wrong_answer" and "html" in final


def test_the_status_of_a_queued_submission_asked_for_changes_is_small(signed_in, student):
    data = post(signed_in, "submit", SOME_CODE).json()
    for since in ("0", "5"):
        assert signed_in.get(data["status_url"], {"since": since}).json() == {
            "id": data["id"],
            "status": "queued",
            "finished": False,
            "tests_ended": 0,
            "tests": [],
        }
    # Anything but a count of tests gets the whole state, as without it.
    for not_a_count in ("²", "9" * 5000):
        assert "html" in signed_in.get(data["status_url"], {"since": not_a_count}).json()


# Attempts: only the current one may grade, and silent workers are taken over


def test_an_old_attempt_is_superseded_and_changes_nothing(catalog, student):
    submission = make_submission(student)
    submission.enqueue()
    submission.enqueue()
    before = Submission.objects.filter(pk=submission.pk).values().get()

    assert Submission.grade_attempt(submission.pk, 1) == "superseded"

    assert Submission.objects.filter(pk=submission.pk).values().get() == before
    assert before["attempt"] == 2 and before["status"] == "queued"


def test_a_verdict_from_an_attempt_taken_over_during_grading_is_dropped(catalog, student, monkeypatch):
    submission = make_submission(student)
    submission.enqueue()

    def graded_while_taken_over(slug: str, code: str, *, include_hidden: bool, **_: Any) -> dict[str, Any]:
        submission.enqueue()  # another worker gave the submission a new attempt meanwhile
        return {"verdict": "accepted", "score": 100.0, "max_score": 100.0, "tests": []}

    monkeypatch.setattr(grading, "grade_code", graded_while_taken_over)

    assert Submission.grade_attempt(submission.pk, 1) == "superseded"

    submission.refresh_from_db()
    assert (submission.status, submission.attempt, submission.verdict) == ("queued", 2, "")
    assert not Progress.objects.filter(user=student, solved_at__isnull=False).exists()


def stall(submission: Submission, *, heartbeat_age_s: float) -> str:
    """Make ``submission`` look as if a worker took its task and then went silent; its task id."""
    task = task_of(submission)
    DBTaskResult.objects.filter(id=task.id).update(status=TaskResultStatus.RUNNING, started_at=ago(heartbeat_age_s))
    Submission.objects.filter(pk=submission.pk).update(
        status=Submission.Status.RUNNING,
        worker="lost:1",
        started_at=ago(heartbeat_age_s),
        heartbeat_at=ago(heartbeat_age_s),
    )
    return str(task.id)


def test_a_running_submission_whose_heartbeat_stopped_is_queued_again(catalog, student, settings):
    settings.STALLED_AFTER_S = 30
    submission = make_submission(student)
    submission.enqueue()
    old_task = stall(submission, heartbeat_age_s=31)

    assert Submission.requeue_stalled() == [submission.pk]

    submission.refresh_from_db()
    assert (submission.status, submission.attempt, submission.worker) == ("queued", 2, "")
    assert submission.task_id != old_task
    assert DBTaskResult.objects.get(id=old_task).status == TaskResultStatus.FAILED
    new_task = task_of(submission)
    assert new_task.status == TaskResultStatus.READY
    assert new_task.args_kwargs["args"] == [submission.pk, 2]
    # Taken back once only.
    assert Submission.requeue_stalled() == []


def test_live_gradings_and_tasks_still_waiting_in_the_queue_are_left_alone(catalog, student, settings):
    settings.STALLED_AFTER_S = 30
    running = make_submission(student)
    running.enqueue()
    stall(running, heartbeat_age_s=300)
    Submission.objects.filter(pk=running.pk).update(heartbeat_at=ago(5))  # a long grading, still beating
    waiting = make_submission(student)
    waiting.enqueue()
    DBTaskResult.objects.filter(id=task_of(waiting).id).update(enqueued_at=ago(300))  # a long queue

    assert Submission.requeue_stalled() == []

    assert Submission.objects.get(pk=running.pk).attempt == 1
    assert Submission.objects.get(pk=waiting.pk).attempt == 1
    assert task_of(running).status == TaskResultStatus.RUNNING


def test_a_grading_interrupted_max_interruptions_times_fails_with_a_message(catalog, student, settings):
    settings.STALLED_AFTER_S = 30
    submission = make_submission(student)
    submission.enqueue()
    for interrupted in range(1, Submission.MAX_INTERRUPTIONS):
        stall(submission, heartbeat_age_s=60)
        assert Submission.requeue_stalled() == [submission.pk]
        submission.refresh_from_db()
        assert (submission.status, submission.interruptions) == ("queued", interrupted)
    tasks = DBTaskResult.objects.count()
    stall(submission, heartbeat_age_s=60)

    assert Submission.requeue_stalled() == []

    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert submission.attempt == Submission.MAX_INTERRUPTIONS
    assert submission.interruptions == Submission.MAX_INTERRUPTIONS
    assert submission.finished_at is not None
    assert submission.report is not None
    assert f"interrupted {Submission.MAX_INTERRUPTIONS} times" in submission.report["message"]
    assert DBTaskResult.objects.count() == tasks
    assert task_of(submission).status == TaskResultStatus.FAILED


def test_regrades_do_not_spend_the_interruption_budget(catalog, student, settings):
    settings.STALLED_AFTER_S = 30
    submission = make_submission(student)
    for _ in range(Submission.MAX_INTERRUPTIONS + 1):  # graded, then regraded again and again
        submission.enqueue()
    stall(submission, heartbeat_age_s=60)

    assert Submission.requeue_stalled() == [submission.pk]  # its first interruption: graded again

    submission.refresh_from_db()
    assert (submission.status, submission.attempt, submission.interruptions) == (
        "queued",
        Submission.MAX_INTERRUPTIONS + 2,
        1,
    )
    submission.enqueue()  # a regrade starts with the whole budget
    assert Submission.objects.get(pk=submission.pk).interruptions == 0


def test_a_queued_submission_whose_worker_died_after_taking_its_task_is_queued_again(catalog, student, settings):
    settings.STALLED_AFTER_S = 30
    submission = make_submission(student)
    submission.enqueue()
    old_task = task_of(submission).id
    # The worker marked the task running, then died before claiming the submission.
    DBTaskResult.objects.filter(id=old_task).update(status=TaskResultStatus.RUNNING, started_at=ago(31))

    assert Submission.requeue_stalled() == [submission.pk]

    submission.refresh_from_db()
    assert (submission.status, submission.attempt) == ("queued", 2)
    assert DBTaskResult.objects.get(id=old_task).status == TaskResultStatus.FAILED
    assert task_of(submission).args_kwargs["args"] == [submission.pk, 2]


HOSTILE_TEXT = "\\x1b[2J\\ud800\\u202e"


@pytest.mark.django_db(transaction=True)
def test_hostile_text_in_a_report_is_shown_escaped_not_as_a_server_error(client, catalog, student, sandboxes):
    code = f"print({HOSTILE_TEXT!r})\ndef aot_compiled_sum(x):\n    raise ValueError({HOSTILE_TEXT!r})\n"

    submission = grade(student, Submission.Kind.SUBMIT, code)

    assert (submission.status, submission.verdict) == ("graded", "runtime_error")
    client.force_login(student)
    page = client.get(reverse("submissions:detail", args=[submission.pk]))
    status = client.get(reverse("submissions:status", args=[submission.pk]))
    assert page.status_code == status.status_code == 200
    text = page.content.decode()
    assert "\\x1b[2J\\ud800\\u202e" in text and "\x1b" not in text


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_output_of_hidden_tests_is_shown_to_staff_only(client, catalog, student, django_user_model, sandboxes):
    code = (
        "import jax\nprint('VISIBLE-MARK')\n\n"
        "def aot_compiled_sum(x):\n    print('CALLED-ON', x.shape)\n"
        "    return jax.jit(jax.numpy.sum).lower(x).compile()(x)\n"
    )
    submission = grade(student, Submission.Kind.SUBMIT, code)
    assert submission.verdict == "accepted"
    assert submission.report is not None and "CALLED-ON (1031,)" in submission.report["hidden_output"]
    pages = [reverse("submissions:detail", args=[submission.pk]), reverse("submissions:status", args=[submission.pk])]

    client.force_login(student)
    for url in pages:
        text = client.get(url).content.decode()
        assert "VISIBLE-MARK" in text and "CALLED-ON (5,)" in text  # printed by a visible test
        assert "(1031,)" not in text and "hidden-output" not in text  # the hidden test's own length

    # An instructor's own submission shows them no more than a student's does.
    instructor = django_user_model.objects.create_user("grace", password="a-long-password-4")
    make_instructor(instructor)
    theirs = grade(instructor, Submission.Kind.SUBMIT, code)
    client.force_login(instructor)
    for url in (reverse("submissions:detail", args=[theirs.pk]), reverse("catalog:detail", args=[SLUG])):
        text = client.get(url).content.decode()
        assert "CALLED-ON (1031,)" not in text and "hidden-output" not in text, url

    client.force_login(django_user_model.objects.create_superuser("root", password="a-long-password-3"))
    for url in pages:
        text = client.get(url).content.decode()
        assert "CALLED-ON (1031,)" in text and "hidden-output" in text
