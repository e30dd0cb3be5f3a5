"""The problem page under 50 concurrent clients, measured with wrk (Debian package ``wrk``).

Run: .venv/bin/python -m bench.web_load [--connections 50] [--seconds 15] [--runs 3]

Starts the site as ``make run`` does (gunicorn and a grading worker, SQLite) on a throwaway
database, then loads ``/problems/aot_compiled_sum/`` as an anonymous visitor and as a
signed-in student (whose page also holds a draft, a progress row and a history). For each it
prints the median and p90 of the server's own time per response (the Server-Timing header,
collected by bench/server_timing.lua) and of the latency wrk saw, which adds the queueing
of 50 clients on a machine whose cores also run wrk.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.webapp.support.running_site import RunningSite

REPO = Path(__file__).resolve().parent.parent
PAGE = "/problems/aot_compiled_sum/"

SIGNED_IN_SESSION = """
import django
django.setup()
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from webapp.catalog.models import Problem
from webapp.submissions.models import Draft, Progress, Submission

user = User.objects.create_user("loadtest", password="a-long-password-1")
problem = Problem.objects.get(slug="aot_compiled_sum")
Draft.objects.create(user=user, problem=problem, code=problem.starter)
Progress.objects.create(user=user, problem=problem, attempted_at=timezone.now())
for kind in ("run", "submit"):
    Submission.objects.create(user=user, problem=problem, kind=kind, code=problem.starter, status="graded",
                              verdict="wrong_answer", score=0, max_score=100)
client = Client()
client.force_login(user)
print(client.cookies["sessionid"].value)
"""


def signed_in_cookie(env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "-c", SIGNED_IN_SESSION],
        cwd=REPO,
        env={**env, "DJANGO_SETTINGS_MODULE": "webapp.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    return f"sessionid={result.stdout.strip()}"


def load(url: str, connections: int, seconds: int, cookie: str | None) -> dict[str, float]:
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "-s", str(REPO / "bench" / "server_timing.lua")]
    if cookie:
        command += ["-H", f"Cookie: {cookie}"]
    output = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    figures = {}
    for prefix in ("server_time_ms", "latency_ms"):
        line = next(line for line in output.splitlines() if line.startswith(prefix))
        for key, value in re.findall(r"(\w+)=([\d.]+)", line):
            figures[f"{prefix}.{key}"] = float(value)
    requests = re.search(r"Requests/sec:\s+([\d.]+)", output)
    figures["requests_per_s"] = float(requests.group(1)) if requests else 0.0
    if figures["server_time_ms.non_200"]:
        raise SystemExit(f"{int(figures['server_time_ms.non_200'])} responses were not 200:\n{output}")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--web-processes", type=int, default=None, help="passed to webapp.serve")
    parser.add_argument("--threads", type=int, default=None, help="passed to webapp.serve")
    args = parser.parse_args()
    serve_args: list[str] = []
    if args.web_processes:
        serve_args += ["--web-processes", str(args.web_processes)]
    if args.threads:
        serve_args += ["--threads", str(args.threads)]
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install wrk")
    with tempfile.TemporaryDirectory(prefix="jaxjudge-load-") as directory:
        site = RunningSite(f"sqlite:///{Path(directory) / 'db.sqlite3'}", serve_args=tuple(serve_args))
        try:
            cookie = signed_in_cookie(site.env)
            print(
                f"{os.cpu_count()} cores; {args.connections} clients; {args.seconds}s a run; {args.runs} runs; "
                f"server options: {' '.join(serve_args) or 'the defaults'}"
            )
            for who, session in (("anonymous", None), ("signed in", cookie)):
                load(site.url + PAGE, args.connections, 2, session)  # warm every web process and thread
                runs = [load(site.url + PAGE, args.connections, args.seconds, session) for _ in range(args.runs)]
                server = [r["server_time_ms.median"] for r in runs]
                print(
                    f"{who:>10}: server time median {statistics.median(server):.2f} ms "
                    f"(runs {', '.join(f'{s:.2f}' for s in server)}), "
                    f"p90 {statistics.median(r['server_time_ms.p90'] for r in runs):.2f} ms; "
                    f"client latency median {statistics.median(r['latency_ms.median'] for r in runs):.1f} ms, "
                    f"p90 {statistics.median(r['latency_ms.p90'] for r in runs):.1f} ms; "
                    f"{statistics.median(r['requests_per_s'] for r in runs):.0f} requests/s"
                )
        finally:
            site.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
