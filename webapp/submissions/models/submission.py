"""A submission: one Run or Submit, from queued to its verdict.

The grading of a submission is a series of *attempts*, numbered on the submission. Every
hand-over to a worker is one (``Submission.enqueue``). A worker starts an attempt only if it
is still the current one, keeps a heartbeat while grading, and writes its verdict only if the
attempt is still current (``Submission.grade_attempt``). When a worker dies (SIGKILL, a lost
machine) its heartbeat stops; any worker then gives the submission a new attempt
(``webapp.submissions.models.worker.requeue_stalled``), so it is graded again and ends with exactly one verdict.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta
from typing import Any, Literal

from django.conf import settings
from django.contrib.auth.models import User
from django.db import DatabaseError, InterfaceError, connection, models, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from webapp import grading
from webapp.accounts.clock import active_zone_name, moment
from webapp.catalog.models import Problem
from webapp.grading import Verdict
from webapp.submissions import liveness
from webapp.submissions.models import limits
from webapp.submissions.models.standing import Draft, Progress
from webapp.submissions.signals import graded
from webapp.submissions.tasks import grade

logger = logging.getLogger(__name__)
# What a worker's attempt came to: the verdict it wrote; the status it wrote where there is no
# verdict (the platform failed, the student cancelled); or "superseded": the attempt was no
# longer the current one, and it wrote nothing.
AttemptOutcome = Verdict | Literal["failed", "cancelled", "superseded"]
# How often a grading worker looks for its student's Cancel: the sandbox stops within this.
CANCEL_POLL_S = 0.2


class Submission(models.Model):
    """One Run (visible tests) or Submit (hidden tests too), from queued to its verdict."""

    class Kind(models.TextChoices):
        RUN = "run"
        SUBMIT = "submit"

    class Origin(models.TextChoices):
        SITE = "site"  # the editor on a problem's page
        AUTOGRADE = "autograde"  # a notebook graded by staff (``manage.py autograde``)

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        GRADED = "graded"
        # The platform failed to grade it, several times over: not the student's fault.
        FAILED = "failed"
        # The student stopped it (Cancel) before it was graded.
        CANCELLED = "cancelled"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="submissions")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    code = models.TextField()
    # A submission made as a notebook is graded as Jupyter runs it, from this JSON (``code``
    # then holds its code cells, for reading); empty for code typed on the site.
    notebook = models.TextField(blank=True)
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.SITE)
    # After its grading was interrupted this many times the platform gives up and says so.
    MAX_INTERRUPTIONS = 3

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    verdict = models.CharField(max_length=40, blank=True, choices=[(v.value, v.value) for v in Verdict])
    score = models.FloatField(null=True, blank=True)
    max_score = models.FloatField(null=True, blank=True)
    report = models.JSONField(null=True, blank=True)
    # The hidden tests the report failed, each as [name, "x: float32[0]", ...]; [] when it
    # passed them all; None where none ran. Kept with the report when it is written, so that a
    # course's problem statistics read this, not thousands of reports (``grading.hidden_failures``).
    hidden_failures = models.JSONField(null=True, blank=True)
    # A submission in one of these has its final state; in the others, it is queued or graded.
    FINISHED_STATUSES = (Status.GRADED, Status.FAILED, Status.CANCELLED)

    # The tests of the current attempt that have ended, as each ends (``TestResult.to_live_dict``),
    # so the page shows them while the others run; the report, once written, supersedes them.
    ended_tests = models.JSONField(default=list, blank=True)
    # Each hand-over to a worker is an attempt; only the current attempt may write a verdict,
    # so a worker that was given up for dead can never overwrite its successor's result.
    attempt = models.PositiveIntegerField(default=0)
    # How often the current grading lost its worker (a regrade starts again from 0): after
    # a few, the platform gives up on it rather than crash worker after worker.
    interruptions = models.PositiveIntegerField(default=0)
    task_id = models.CharField(max_length=64, blank=True)
    worker = models.CharField(max_length=100, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # When it was handed in, where that is not when the site received it: an autograded
    # notebook's time as staff give it (``manage.py autograde``). Deadlines go by ``handed_in``.
    handed_in_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When the student pressed Cancel: its worker stops the sandbox within CANCEL_POLL_S.
    cancel_requested_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = (
            models.Index(fields=["user", "problem", "-created_at"]),
            models.Index(fields=["status", "heartbeat_at"]),
        )

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} of {self.problem.slug} by {self.user}"

    @property
    def kind_label(self) -> str:
        """What the student's history calls it: where it came from, not only its kind."""
        if self.origin == self.Origin.AUTOGRADE:
            return "notebook, graded by staff"
        return str(self.kind)

    @property
    def handed_in(self) -> datetime:
        """The time a deadline is measured against."""
        return self.handed_in_at or self.created_at

    @classmethod
    def accept(cls, user: User, problem: Problem, kind: str, code: str) -> Submission:
        """Take a Run or Submit from the site: check the student's limits, keep the code as
        their draft, and queue its grading. Raises ``Refused``.

        Call it in a transaction: the student's row is locked, so that the limits hold for
        simultaneous requests too.
        """
        User.objects.select_for_update().filter(pk=user.pk).first()
        cls.check_allowed(user, code)
        Draft.objects.update_or_create(user=user, problem=problem, defaults={"code": code})
        submission = cls.objects.create(user=user, problem=problem, kind=kind, code=code)
        Progress.refresh(user.pk, problem.pk)  # now attempted
        submission.enqueue()
        return submission

    @classmethod
    def check_allowed(cls, user: User, code: str) -> None:
        """Whether ``user`` may hand in ``code`` now (``webapp.submissions.models.limits``)."""
        limits.check_handed_in_code(code)
        mine = cls.objects.filter(user=user)
        limits.check_gradings(
            pending=mine.filter(status__in=[cls.Status.QUEUED, cls.Status.RUNNING]).count(),
            last_minute=mine.filter(created_at__gte=timezone.now() - timedelta(minutes=1)).count(),
        )

    @property
    def queue_name(self) -> str:
        """GPU problems are graded by GPU workers, on a queue of their own."""
        return "gpu" if self.problem.device == "gpu" else "default"

    def enqueue(self, *, after_interruption: bool = False) -> None:
        """Start a new attempt (any earlier result is cleared) and queue it for a worker.

        ``after_interruption``: its worker died mid-grading, which counts towards
        ``MAX_INTERRUPTIONS``; any other new attempt (a submission, a regrade) starts the count
        again. The task row is written in the caller's transaction, so a worker sees it only
        once the submission it names is committed too.
        """
        type(self).objects.filter(pk=self.pk).update(
            status=self.Status.QUEUED,
            attempt=F("attempt") + 1,
            interruptions=F("interruptions") + 1 if after_interruption else 0,
            worker="",
            heartbeat_at=None,
            started_at=None,
            finished_at=None,
            cancel_requested_at=None,
            verdict="",
            score=None,
            max_score=None,
            report=None,
            hidden_failures=None,
            ended_tests=[],
        )
        self.refresh_from_db()
        result = grade.using(queue_name=self.queue_name).enqueue(self.pk, self.attempt)
        self.task_id = str(result.id)
        type(self).objects.filter(pk=self.pk).update(task_id=self.task_id)

    @classmethod
    def regrade(cls, submissions: QuerySet[Submission]) -> list[int]:
        """Queue each of ``submissions`` for a new grading, oldest first; returns their ids.

        One transaction each, so that a failure midway leaves the ones before it queued."""
        ids = []
        for submission in submissions.select_related("problem").order_by("created_at"):
            with transaction.atomic():
                submission.enqueue()
            ids.append(submission.pk)
        return ids

    @classmethod
    def grade_attempt(cls, submission_id: int, attempt: int) -> AttemptOutcome:
        """A worker's part: grade the submission if this attempt is still the current one.

        Returns the verdict written, ``failed``, or ``superseded`` when the attempt was no
        longer current (another worker has it) and nothing was written.
        """
        started = timezone.now()
        claimed = cls.objects.filter(pk=submission_id, attempt=attempt, status=cls.Status.QUEUED).update(
            status=cls.Status.RUNNING, worker=liveness.WORKER_NAME, heartbeat_at=started, started_at=started
        )
        if not claimed:
            return "superseded"
        submission = cls.objects.select_related("problem").get(pk=submission_id)
        this_attempt = cls.objects.filter(pk=submission_id, attempt=attempt)
        ended: list[dict[str, Any]] = []
        # A Cancel stops the sandbox at once: the grading then ends as after any crash, and
        # the cancellation, not that report, is written.
        sandboxes: list[grading.Stoppable] = []
        cancelled = threading.Event()

        def test_ended(test: dict[str, Any]) -> None:
            # A test that ends once the student has cancelled ends because of the Cancel (its
            # sandbox killed): it says nothing of their code, so it is not shown.
            if cancelled.is_set():
                return
            ended.append(test)
            try:
                this_attempt.filter(status=cls.Status.RUNNING).update(ended_tests=ended)
            except (DatabaseError, InterfaceError):  # shown late, with the verdict, rather than never
                logger.warning("submission %s: its ended tests could not be written", submission_id)
                connection.close()  # broken (a restarting database, say): the next write opens a new one

        def look_for_cancel() -> None:
            if not cancelled.is_set() and this_attempt.filter(cancel_requested_at__isnull=False).exists():
                cancelled.set()
            if cancelled.is_set():  # again at every look: the sandbox may have been taken since
                for sandbox in sandboxes:
                    sandbox.stop()

        name = f"submission {submission_id}"
        with (
            liveness.beating(lambda: this_attempt.update(heartbeat_at=timezone.now()), name),
            liveness.beating(look_for_cancel, f"{name} (cancel)", every=CANCEL_POLL_S),
        ):
            try:
                report = grading.grade_code(
                    submission.problem.slug,
                    submission.code,
                    include_hidden=submission.kind == cls.Kind.SUBMIT,
                    notebook=submission.notebook,
                    on_test=test_ended,
                    on_sandbox=sandboxes.append,
                )
            except Exception as exc:
                if cancelled.is_set():
                    return submission._cancelled(attempt)
                logger.exception("grading submission %s failed", submission_id)
                return submission._finish(attempt, None, f"the grader failed: {type(exc).__name__}: {exc}")
        if cancelled.is_set():
            return submission._cancelled(attempt)
        return submission._finish(attempt, report, "")

    def _cancelled(self, attempt: int) -> AttemptOutcome:
        """Write the student's Cancel of this attempt: one line, "Cancelled after 4.0 s.", and the
        tests that had ended before it (those its stopping killed were never recorded)."""
        now = timezone.now()
        seconds = (now - self.started_at).total_seconds() if self.started_at else 0.0
        ended = type(self).objects.filter(pk=self.pk).values_list("ended_tests", flat=True).first() or []
        fields = {
            "status": self.Status.CANCELLED,
            "finished_at": now,
            "heartbeat_at": None,
            "verdict": "",
            "report": self.report_without_verdict(f"Cancelled after {seconds:.1f} s.", ended),
        }
        written = liveness.outlasting_database_outages(
            lambda: type(self).objects.filter(pk=self.pk, attempt=attempt, status=self.Status.RUNNING).update(**fields),
            f"submission {self.pk}: its cancellation",
        )
        return "cancelled" if written else "superseded"

    def _finish(self, attempt: int, report: dict[str, Any] | None, failure: str) -> AttemptOutcome:
        fields: dict[str, Any] = {"finished_at": timezone.now(), "heartbeat_at": None}
        if report is None:
            fields.update(status=self.Status.FAILED, verdict="", report=self.report_without_verdict(failure))
        else:
            fields.update(
                status=self.Status.GRADED,
                verdict=report["verdict"],
                score=report["score"],
                max_score=report["max_score"],
                report=report,
                hidden_failures=grading.hidden_failures(report),
            )

        def write() -> int:
            with transaction.atomic():
                written = (
                    type(self).objects.filter(pk=self.pk, attempt=attempt, status=self.Status.RUNNING).update(**fields)
                )
                # A platform failure says nothing of the student's code: their standing stays as it was.
                if written and report is not None:
                    Progress.refresh(self.user_id, self.problem_id)
                    self.refresh_from_db()  # as written: receivers read its verdict and score
                    graded.send(sender=type(self), submission=self)
                return written

        written = liveness.outlasting_database_outages(write, f"submission {self.pk}: the verdict")
        if not written:
            return "superseded"
        return Verdict(report["verdict"]) if report is not None else "failed"

    @classmethod
    def record_graded(
        cls,
        user: User,
        problem: Problem,
        report: dict[str, Any],
        *,
        code: str,
        notebook: str = "",
        handed_in_at: datetime | None = None,
    ) -> Submission:
        """Record a Submit graded elsewhere (a notebook graded by staff) and update the standing.

        It is a Submit like one made on the site: it counts for the gradebook and for solving,
        and ``regrade`` grades it again from its notebook. ``handed_in_at``: when the student
        handed it in, as staff say (deadlines go by it); by default, now.
        """
        now = timezone.now()
        with transaction.atomic():
            submission = cls.objects.create(
                user=user,
                problem=problem,
                kind=cls.Kind.SUBMIT,
                origin=cls.Origin.AUTOGRADE,
                code=code,
                notebook=notebook,
                status=cls.Status.GRADED,
                verdict=report["verdict"],
                score=report["score"],
                max_score=report["max_score"],
                report=report,
                hidden_failures=grading.hidden_failures(report),
                attempt=1,
                started_at=now,
                finished_at=now,
                handed_in_at=handed_in_at,
            )
            Progress.refresh(user.pk, problem.pk)
        return submission

    @property
    def verdict_label(self) -> str:
        """The verdict as the student reads it ("Wrong answer"); empty until graded."""
        return Verdict(self.verdict).label if self.verdict else ""

    @property
    def finished(self) -> bool:
        return self.status in self.FINISHED_STATUSES

    def cancel(self) -> bool:
        """The student's Cancel; False when there is nothing left to stop (it is finished).

        A queued submission is cancelled here and now (no worker will claim it: workers claim
        only queued ones). A running one is marked, and its worker, which looks every
        ``CANCEL_POLL_S``, stops its sandbox and writes the cancellation.
        """
        now = timezone.now()
        mine = type(self).objects.filter(pk=self.pk)
        queued = mine.filter(status=self.Status.QUEUED).update(
            status=self.Status.CANCELLED,
            cancel_requested_at=now,
            finished_at=now,
            report=self.report_without_verdict("Cancelled before it started."),
        )
        return bool(queued or mine.filter(status=self.Status.RUNNING).update(cancel_requested_at=now))

    @classmethod
    def latest_accepted(cls, user: User, problem: Problem) -> Submission | None:
        """The student's latest Submit of ``problem`` graded accepted, if any."""
        accepted = cls.objects.filter(
            user=user, problem=problem, kind=cls.Kind.SUBMIT, status=cls.Status.GRADED, verdict=Verdict.ACCEPTED
        )
        return accepted.order_by("-created_at").first()

    @property
    def accepted(self) -> bool:
        return self.status == self.Status.GRADED and self.verdict == Verdict.ACCEPTED

    def live_update(self, since: int = 0) -> dict[str, Any]:
        """While it is graded, what a page that already shows ``since`` of its ended tests lacks:
        its state and the tests that ended after those. Small, for polling; once finished,
        ``to_json`` has the verdict and the scored tests."""
        return {
            "id": self.pk,
            "status": self.status,
            "finished": self.finished,
            "tests_ended": len(self.ended_tests),
            "tests": self.ended_tests[max(since, 0) :],
        }

    def report_without_verdict(self, message: str, tests: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The report stored when a grading ends with no verdict (cancelled, failed by the
        platform): the grader's report shape and schema, so ``report`` always holds one shape."""
        return grading.report_without_verdict(self.problem.slug, message, tests or [])

    def to_json(self, *, with_hidden_output: bool = False) -> dict[str, Any]:
        """What the owner's page shows, live: the state, then every test's outcome.

        What the submission printed while hidden tests ran would tell the student their inputs:
        only staff see it.
        """
        report = self.report or {}
        hidden = {"hidden_output": report.get("hidden_output", "")} if with_hidden_output else {}
        return {
            "id": self.pk,
            "kind": self.kind,
            "status": self.status,
            "finished": self.finished,
            "verdict": self.verdict,
            "verdict_label": self.verdict_label,
            "score": self.score,
            "max_score": self.max_score,
            "message": report.get("message", ""),
            "tests": report.get("tests", []),
            "ended_tests": [] if self.finished else self.ended_tests,
            "output": report.get("output", ""),
            "insight": report.get("insight", {}),
            "duration_s": report.get("duration_s"),
            "created_at": self.created_at.isoformat(),
            # As every page writes it, in the reader's zone and saying which (the page's script
            # puts it in the history's new row, in a <time> titled with the zone).
            "created_at_text": moment(self.created_at, seconds=True),
            "time_zone": active_zone_name(),
            **hidden,
        }
