"""``python -m webapp.serve``: the whole site on one machine, as ``make run`` starts it.

It brings the database up to date (migrations, the catalog from problems/), then runs the
web server (gunicorn, static files by whitenoise) and grading workers side by side, and
restarts any of them that dies: a worker killed in the middle of a grading is replaced, and
the submission it held is graded again (see ``webapp.submissions.models``).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import django
from django.conf import settings

from webapp import grading, static_files

REPO_ROOT = Path(__file__).resolve().parent.parent
# A child that dies this soon after its start is failing, not unlucky: wait before the next try.
FAST_DEATH_S = 5.0


@dataclass
class Child:
    name: str
    command: list[str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0

    def start(self) -> None:
        self.process = subprocess.Popen(self.command, cwd=REPO_ROOT)
        self.started_at = time.monotonic()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m webapp.serve", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    # A page is CPU work in Python: a process per core, and a second thread to cover database
    # waits. More threads only queue behind the GIL (measured: 3x less throughput with 8).
    default_processes = max(2, os.cpu_count() or 1)
    parser.add_argument(
        "--web-processes", type=int, default=default_processes, help=f"gunicorn processes (default {default_processes})"
    )
    parser.add_argument("--threads", type=int, default=2, help="threads per web process (default 2)")
    parser.add_argument("--graders", type=int, default=1, help="grading workers (default 1)")
    parser.add_argument("--no-setup", action="store_true", help="skip migrate, syncproblems and collectstatic")
    return parser.parse_args(argv)


def prepare_database() -> None:
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--verbosity", "0"], cwd=REPO_ROOT, check=True)
    subprocess.run([python, "manage.py", "syncproblems"], cwd=REPO_ROOT, check=True, stdout=subprocess.DEVNULL)
    static_files.collect_if_stale()


def children(args: argparse.Namespace) -> list[Child]:
    bin_dir = Path(sys.executable).parent
    web = Child(
        "web",
        [
            str(bin_dir / "gunicorn"),
            "webapp.wsgi:application",
            "--bind", f"{args.host}:{args.port}",
            "--workers", str(args.web_processes),
            "--threads", str(args.threads),
            "--worker-class", "gthread",
            "--log-level", "warning",
        ],
    )  # fmt: skip
    graders = [Child(f"grader-{i}", [sys.executable, "manage.py", "worker"]) for i in range(args.graders)]
    # A course's own background work (rosters, LTI), never on the graders' queue.
    courses = Child(
        "courses", [sys.executable, "manage.py", "db_worker", "--queue-name", "courses", "--interval", "0.5"]
    )
    return [web, *graders, courses]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    django.setup()
    if not args.no_setup:
        prepare_database()
    lost = grading.unenforced_limits()
    if lost is not None and not settings.ALLOW_UNENFORCED_LIMITS:
        # Its grading workers would refuse to start, again and again: say why once, here.
        print(f"jaxjudge: {lost}. To go on, {grading.ALLOW_UNENFORCED_LIMITS_HELP}.", file=sys.stderr)
        return 2
    running = children(args)
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    for child in running:
        child.start()
    print(
        f"jaxjudge is serving http://{args.host}:{args.port}/ with {args.graders} grading worker(s); Ctrl-C stops",
        flush=True,
    )
    while not stopping:
        time.sleep(0.2)
        for child in running:
            assert child.process is not None
            code = child.process.poll()
            if code is None or stopping:
                continue
            lived = time.monotonic() - child.started_at
            print(f"{child.name} exited with {code} after {lived:.1f}s; starting it again", file=sys.stderr, flush=True)
            if lived < FAST_DEATH_S:
                time.sleep(FAST_DEATH_S)
            child.start()
    for child in running:
        child.stop()
    for child in running:
        if child.process is not None:
            try:
                child.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.process.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
