"""``manage.py worker``: grade submissions from the task queue.

A worker takes tasks with django-tasks-db's worker loop, grades each in a warm sandbox of
its own pool, and every few seconds gives another attempt to any submission whose worker
has gone silent (killed, or its machine lost), so that no submission is ever dropped.

Before taking its first task it warms the problems students are about to Submit
(``problems_to_warm``: those of the assignments open now, then the catalog's most used
lately), so that a worker just (re)started answers their first Submit as fast as the next.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import InterfaceError, OperationalError, connection
from django.db.models import Count, Min, Q
from django.utils import timezone
from django_tasks_db.management.commands.db_worker import Worker as TaskLoop
from django_tasks_db.models import DBTaskResult

from webapp import grading
from webapp.catalog.models import Problem
from webapp.submissions import liveness
from webapp.submissions.models import Worker
from webapp.submissions.models.worker import requeue_stalled

logger = logging.getLogger(__name__)

# Besides the open assignments' problems, the catalog's most Submitted over this window.
MOST_USED_PROBLEMS = 5
MOST_USED_WINDOW = timedelta(days=14)


def problems_to_warm(most_used: int = MOST_USED_PROBLEMS) -> list[str]:
    """The problems a worker warms as it starts, in order: those of the assignments released
    and not yet due (the soonest due first), then the ``most_used`` problems with the most
    submissions over ``MOST_USED_WINDOW``."""
    now = timezone.now()
    open_now = Q(assignments__release_at__lte=now, assignments__due_at__gte=now)
    assigned = (
        Problem.objects.filter(open_now)
        .annotate(due=Min("assignments__due_at", filter=open_now))
        .order_by("due", "slug")
        .values_list("slug", flat=True)
    )
    recent = Q(submissions__created_at__gte=now - MOST_USED_WINDOW)
    used = (
        Problem.objects.annotate(uses=Count("submissions", filter=recent))
        .filter(uses__gt=0)
        .order_by("-uses", "slug")
        .values_list("slug", flat=True)[:most_used]
    )
    return list(dict.fromkeys([*assigned, *used]))


class Command(BaseCommand):
    help = "Grade submissions from the task queue (CPU sandboxes, or GPU ones with --queue gpu)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--queue", choices=["default", "gpu"], default="default", help="the queue to take from")
        parser.add_argument(
            "--interval", type=float, default=0.1, help="seconds between looks at an empty queue (default 0.1)"
        )
        parser.add_argument("--max-tasks", type=int, default=None, help="exit after this many gradings")
        parser.add_argument(
            "--allow-unenforced-limits",
            action="store_true",
            default=settings.ALLOW_UNENFORCED_LIMITS,
            help="start even where sandboxes cannot get cgroups: no process cap, and memory capped "
            "only by an address-space limit (also JAXJUDGE_ALLOW_UNENFORCED_LIMITS=1)",
        )

    def handle(
        self,
        *args: Any,
        queue: str,
        interval: float,
        max_tasks: int | None,
        allow_unenforced_limits: bool,
        **options: Any,
    ) -> None:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s worker %(process)d %(levelname)s %(message)s")
        device = "gpu" if queue == "gpu" else "cpu"
        self.check_limits_are_enforced(device, allowed_not_to=allow_unenforced_limits)
        worker_id = liveness.WORKER_NAME[:64]  # the task library's limit
        waiting = DBTaskResult.objects.ready().filter(queue_name=queue)
        warmed = grading.warm_up(device, problems_to_warm(), work_waiting=waiting.exists)
        if warmed:
            logger.info("warmed %d problems: %s", len(warmed), ", ".join(warmed))
        stop = threading.Event()
        reaper = threading.Thread(target=self.take_back_stalled, args=(stop,), name="reaper", daemon=True)
        reaper.start()
        worker = TaskLoop(
            queue_names=[queue],
            interval=interval,
            batch=False,
            backend_name="default",
            startup_delay=False,
            max_tasks=max_tasks,
            worker_id=worker_id,
            excluded_queue_names=[],
        )
        worker.configure_signals()
        Worker.forget_dead()
        Worker.beat(worker_id, queue)  # alive from now on (/healthz counts it)
        self.stdout.write(f"worker {worker_id} ready on queue {queue!r} ({device} sandboxes)")
        try:
            with liveness.beating(lambda: Worker.beat(worker_id, queue), f"worker {worker_id}"):
                self.run_through_database_outages(worker)
        finally:
            stop.set()
            grading.close_pools()

    @staticmethod
    def run_through_database_outages(worker: TaskLoop) -> None:
        """Run the worker loop; when the database goes away (a restart, a failover), wait for it.

        The task library's loop ends on any database error but a lock. Restarting the whole
        worker would throw away its warm sandboxes, so the loop is resumed here instead, once
        the database answers again.
        """
        while True:
            try:
                worker.run()
                return
            except (OperationalError, InterfaceError) as exc:
                if not worker.running:
                    return
                logger.warning("database unreachable (%s); trying again in %ss", exc, liveness.DATABASE_RETRY_S)
                connection.close()
                time.sleep(liveness.DATABASE_RETRY_S)

    @staticmethod
    def check_limits_are_enforced(device: str, *, allowed_not_to: bool) -> None:
        """Refuse to grade where sandboxes cannot get their limits, unless the operator allows it."""
        lost = grading.unenforced_limits(device)
        if lost is None:
            return
        if not allowed_not_to:
            raise CommandError(f"this worker will not start: {lost}. To go on, {grading.ALLOW_UNENFORCED_LIMITS_HELP}.")
        logger.warning("%s (allowed by the operator)", lost)

    @staticmethod
    def take_back_stalled(stop: threading.Event) -> None:
        period = max(1.0, settings.STALLED_AFTER_S / 3)
        try:
            while not stop.wait(period):
                try:
                    requeue_stalled()
                except Exception:  # a locked or restarting database, say: try again next round
                    logger.exception("could not look for stalled submissions")
                    connection.close()
        finally:
            connection.close()
