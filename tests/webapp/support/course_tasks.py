"""The ``courses`` queue's tasks run in a test as its worker (``manage.py db_worker --queue-name
courses``) runs them: rosters, LTI roster syncs and score sends."""

from __future__ import annotations

from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult


def run_courses_tasks(task_path_prefix: str = "") -> list[DBTaskResult]:
    """Run every task ready on the courses queue (those whose path starts with the prefix), in
    order, each read back after it ran."""
    worker = Worker(
        queue_names=["courses"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="course-tests",
        excluded_queue_names=[],
    )
    ran = []
    for result in DBTaskResult.objects.ready().filter(queue_name="courses", task_path__startswith=task_path_prefix):
        result.claim("course-tests")
        worker.run_task(result)
        result.refresh_from_db()
        ran.append(result)
    return ran
