"""How fast N grading workers drain a full queue, on PostgreSQL.

Run: .venv/bin/python -m bench.queue_drain [--workers 1 2 4] [--queued 200] [--graded 24]

Starts a throwaway PostgreSQL server (as the tests do), then for each worker count starts
the site as ``make run`` does with that many workers, waits until they are all ready,
enqueues a batch in one transaction, and times it from the enqueue to the last verdict.
Two batches per worker count:

- ``queue``: ``--queued`` syntax errors, which a worker grades without a sandbox: the cost of
  the queue itself (claiming, the attempt fence, writing verdicts);
- ``graded``: ``--graded`` submissions through the sandbox, half right and half wrong.

Prints medians over ``--runs`` batches: how long the enqueue took, how long the drain took
(from the enqueue on), submissions per second, and per second per core.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import time

from tests.postgres import throwaway_cluster
from tests.webapp.support.running_site import RunningSite

SLUG = "aot_compiled_sum"
SYNTAX_ERROR = "def aot_compiled_sum(x:\n    return x\n"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.queue_drain", description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--queued", type=int, default=200, help="syntax errors per queue batch")
    parser.add_argument("--graded", type=int, default=24, help="sandboxed gradings per graded batch")
    parser.add_argument("--runs", type=int, default=3, help="batches of each kind per worker count (median)")
    return parser.parse_args()


def drain(codes: list[str]) -> tuple[float, float]:
    """Enqueue one submission per code in one transaction; seconds that took, and seconds
    until all were finished."""
    from django.contrib.auth.models import User
    from django.db import transaction

    from webapp.catalog.models import Problem
    from webapp.submissions.models import Submission

    student = User.objects.get(username="bench")
    problem = Problem.objects.get(slug=SLUG)
    started = time.monotonic()
    with transaction.atomic():
        for code in codes:
            Submission.objects.create(user=student, problem=problem, kind="submit", code=code).enqueue()
    enqueued = time.monotonic() - started
    finished_states = [Submission.Status.GRADED, Submission.Status.FAILED]
    while Submission.objects.exclude(status__in=finished_states).exists():
        time.sleep(0.02)
    elapsed = time.monotonic() - started
    verdicts = set(Submission.objects.values_list("verdict", flat=True))
    assert Submission.objects.filter(attempt=1, status=Submission.Status.GRADED).count() == len(codes), verdicts
    Submission.objects.all().delete()
    return enqueued, elapsed


def main() -> None:
    args = parse_args()
    with throwaway_cluster() as cluster:
        os.environ["DATABASE_URL"] = cluster.url
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
        import django

        django.setup()
        from django.contrib.auth.models import User
        from django.core.management import call_command

        from grader.problem import load_problem, solutions_dir

        call_command("migrate", verbosity=0)
        call_command("syncproblems", stdout=io.StringIO())
        User.objects.create_user("bench", password="a-long-password-1")
        right = load_problem(SLUG).reference_solution.read_text()
        wrong = (solutions_dir() / SLUG / "wrong_value.py").read_text()
        batches = {
            "queue": [SYNTAX_ERROR] * args.queued,
            "graded": [right if i % 2 else wrong for i in range(args.graded)],
        }
        cores = os.cpu_count() or 1
        print(f"PostgreSQL {cluster.bin.parent.name}, {cores} cores, problem {SLUG}")
        print(f"median of {args.runs} batches each")
        print(
            f"{'workers':>7}  {'batch':<7} {'subs':>5} {'enqueue s':>9} {'drain s':>8} "
            f"{'subs/s':>8} {'subs/s/core':>11}"
        )
        for workers in args.workers:
            site = RunningSite(cluster.url, setup=False, graders=workers, extra_env={"JAXJUDGE_MAX_PENDING": "100000"})
            try:
                for name, codes in batches.items():
                    runs = [drain(codes) for _ in range(args.runs)]
                    enqueue_s = statistics.median(enqueued for enqueued, _ in runs)
                    seconds = statistics.median(elapsed for _, elapsed in runs)
                    rate = len(codes) / seconds
                    print(
                        f"{workers:>7}  {name:<7} {len(codes):>5} {enqueue_s:>9.2f} {seconds:>8.2f} "
                        f"{rate:>8.1f} {rate / cores:>11.2f}"
                    )
            finally:
                site.stop()


if __name__ == "__main__":
    main()
