"""Cancel: a queued submission is cancelled at once; a running one has its sandbox stopped by its
worker within a fraction of a second (a real sandbox, running an endless loop)."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.webapp.support.submitting import JSON, make_submission
from webapp.submissions.models import Submission

ENDLESS = "import jax\n\n\ndef aot_compiled_sum(x):\n    while True:\n        pass\n"


def cancel(client: Client, submission: Submission):
    return client.post(reverse("submissions:cancel", args=[submission.pk]), headers=JSON)


@pytest.mark.django_db
def test_a_queued_submission_is_cancelled_at_once_and_no_worker_grades_it(client, catalog, student):
    client.force_login(student)
    submission = make_submission(student)
    submission.enqueue()
    response = cancel(client, submission)
    assert response.status_code == 202 and response.json() == {"cancelling": True}
    submission.refresh_from_db()
    assert submission.status == Submission.Status.CANCELLED and submission.finished
    assert Submission.grade_attempt(submission.pk, submission.attempt) == "superseded"
    state = client.get(reverse("submissions:status", args=[submission.pk]), headers=JSON).json()
    assert state["finished"] and "Cancelled" in state["html"]


@pytest.mark.django_db
def test_a_finished_submission_or_anothers_cannot_be_cancelled(client, catalog, student):
    client.force_login(student)
    graded = make_submission(student, status=Submission.Status.GRADED, verdict="accepted")
    assert cancel(client, graded).status_code == 409
    graded.refresh_from_db()
    assert graded.status == Submission.Status.GRADED
    someone = User.objects.create_user("someone-else", password="a-long-password-42")
    theirs = make_submission(someone)
    theirs.enqueue()
    assert cancel(client, theirs).status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == Submission.Status.QUEUED
    assert client.get(reverse("submissions:cancel", args=[theirs.pk])).status_code in (404, 405)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_cancel_stops_an_endless_loop_in_its_sandbox_within_a_second(catalog, student):
    submission = make_submission(student, kind=Submission.Kind.RUN, code=ENDLESS)
    submission.enqueue()
    submission.refresh_from_db()
    verdicts: list[str] = []
    worker = threading.Thread(
        target=lambda: verdicts.append(Submission.grade_attempt(submission.pk, submission.attempt))
    )
    worker.start()
    deadline = time.monotonic() + 60
    # Running, and its first test well into the loop (loading the code has finished).
    while time.monotonic() < deadline:
        submission.refresh_from_db()
        if submission.status == Submission.Status.RUNNING and submission.started_at is not None:
            break
        time.sleep(0.05)
    time.sleep(2.0)
    pressed = time.monotonic()
    assert submission.cancel()
    worker.join(timeout=30)
    stopped = time.monotonic() - pressed
    submission.refresh_from_db()
    assert verdicts == ["cancelled"], verdicts
    assert submission.status == Submission.Status.CANCELLED and submission.finished
    # One line, as the student chose it; the tests its stopping killed are not listed as killed.
    report = submission.report or {}
    assert re.fullmatch(r"Cancelled after \d+\.\d s\.", report["message"]), report["message"]
    assert report["tests"] == [] and submission.ended_tests == [], report["tests"]
    assert "signal" not in json.dumps(report) and "SIGKILL" not in json.dumps(report)
    # Stopped by the Cancel, not by the time limit (a call may run 20 s): how soon it stops is
    # measured by bench.web_verdict --cancel, not asserted here, on a machine that may be busy.
    assert stopped < 5.0, stopped
