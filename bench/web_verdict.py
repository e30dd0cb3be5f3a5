"""Submit to verdict through the whole site: HTTP, the task queue, a worker, the sandbox.

Run: .venv/bin/python -m bench.web_verdict [--runs 7] [--problem aot_compiled_sum] [--cancel]

Starts the site as ``make run`` does on a throwaway database, signs a student in, then
submits the problem's reference solution ``--runs`` times, one after another, polling the
status every 20 ms as a browser would (the page itself polls every 250 ms). Prints the
median and p90 of submit-to-verdict, and how much of it the grading itself took (the
report's duration_s); the rest is the queue, the worker's hand-over and HTTP. The first
submission after start-up is shown apart: it also fills the worker's caches.

``--cancel`` instead submits code that never ends, presses Cancel once the grading has run
for a second, and times Cancel to the cancelled status (the median and p90, as above).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from bench.stats import p90
from bench.web_load import signed_in_cookie
from grader.problem import load_problem
from tests.webapp.support.running_site import RunningSite

POLL_S = 0.02


def fetch(url: str, cookie: str, data: dict[str, str] | None = None, token: str = "") -> tuple[str, str]:
    """The body of a GET (or of a POST of ``data``), and any csrftoken cookie the server set."""
    headers = {"Cookie": cookie, "Accept": "application/json"}
    body = None
    if data is not None:
        body = urllib.parse.urlencode(data).encode()
        headers["X-CSRFToken"] = token
    with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers)) as response:
        csrf = re.search(r"csrftoken=([^;]+)", response.headers.get("Set-Cookie", ""))
        return response.read().decode(), csrf.group(1) if csrf else ""


def submit_and_wait(site: RunningSite, slug: str, code: str, cookie: str, token: str) -> tuple[float, float]:
    started = time.perf_counter()
    created, _ = fetch(f"{site.url}/problems/{slug}/submit/", cookie, {"code": code}, token)
    status_url = site.url + json.loads(created)["status_url"]
    while True:
        status = json.loads(fetch(status_url, cookie)[0])
        if status["finished"]:
            elapsed = time.perf_counter() - started
            if status["verdict"] != "accepted":
                raise SystemExit(f"the reference was not accepted: {status['verdict']}: {status['message']}")
            return elapsed, float(status["duration_s"])
        time.sleep(POLL_S)


ENDLESS = "def {name}(*args, **kwargs):\n    while True:\n        pass\n"
RUNNING_BEFORE_CANCEL_S = 1.0


def cancel_and_wait(site: RunningSite, slug: str, code: str, cookie: str, token: str) -> tuple[float, float]:
    """Seconds from Cancel to the cancelled status, and how long the grading had run."""
    created, _ = fetch(f"{site.url}/problems/{slug}/submit/", cookie, {"code": code}, token)
    urls = json.loads(created)
    status_url = site.url + urls["status_url"]
    while json.loads(fetch(status_url, cookie)[0])["status"] != "running":
        time.sleep(POLL_S)
    time.sleep(RUNNING_BEFORE_CANCEL_S)
    pressed = time.perf_counter()
    fetch(site.url + urls["cancel_url"], cookie, {}, token)
    while True:
        status = json.loads(fetch(status_url, cookie)[0])
        if status["finished"]:
            if status["status"] != "cancelled":
                raise SystemExit(f"the endless loop was not cancelled: {status['status']} {status['verdict']}")
            return time.perf_counter() - pressed, RUNNING_BEFORE_CANCEL_S
        time.sleep(POLL_S)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--problem", default="aot_compiled_sum")
    parser.add_argument("--cancel", action="store_true", help="time Cancel of an endless loop instead")
    args = parser.parse_args()
    problem = load_problem(args.problem)
    code = ENDLESS.format(name=problem.entry_points[0]) if args.cancel else problem.reference_solution.read_text()
    measure = cancel_and_wait if args.cancel else submit_and_wait
    with tempfile.TemporaryDirectory(prefix="jaxjudge-verdict-") as directory:
        site = RunningSite(
            f"sqlite:///{Path(directory) / 'db.sqlite3'}", extra_env={"JAXJUDGE_RATE_LIMIT_PER_MINUTE": "1000"}
        )
        try:
            session = signed_in_cookie(site.env)
            _, token = fetch(f"{site.url}/problems/{args.problem}/", session)
            cookie = f"{session}; csrftoken={token}"
            first = measure(site, args.problem, code, cookie, token)
            runs = [measure(site, args.problem, code, cookie, token) for _ in range(args.runs)]
        finally:
            site.stop()
    totals, gradings = [r[0] for r in runs], [r[1] for r in runs]
    if args.cancel:
        print(
            f"{args.problem}: an endless loop, cancelled after running {RUNNING_BEFORE_CANCEL_S:.0f} s: Cancel to "
            f"the cancelled status median {statistics.median(totals):.3f} s, p90 {p90(totals):.3f} s over "
            f"{args.runs} runs (the first after start: {first[0]:.3f} s)"
        )
        return 0
    print(f"{args.problem}: first submission after start {first[0]:.3f} s (grading {first[1]:.3f} s)")
    print(
        f"{args.problem}: submit to verdict median {statistics.median(totals):.3f} s, p90 {p90(totals):.3f} s "
        f"over {args.runs} runs; grading median {statistics.median(gradings):.3f} s, everything else "
        f"{statistics.median(t - g for t, g in runs):.3f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
