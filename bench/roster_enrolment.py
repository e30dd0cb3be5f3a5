"""A 10,000-row roster enrolled while other students work: how long it takes, and how long the
other students' requests wait meanwhile.

Run: .venv/bin/python -m bench.roster_enrolment [--rows 10000] [--no-old]

Starts the site as ``make run`` does (gunicorn, a grading worker and the courses' worker) on a
throwaway SQLite database (or the one ``DATABASE_URL`` names), its emails written to files.
An instructor uploads the roster through the roster page; until the courses' worker is done,
two other students save drafts (one every 0.2 s each) and one of them Submits a solution. It
prints the time of the upload request, the time until every invitation is made and emailed,
and the median and max latency of the other students' requests (the goal: none waits more
than 1 s). Then, unless ``--no-old``, the same while the old enrolment runs (every row in one
transaction, as the roster page did before: accounts and memberships, no email).
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from tests.webapp.support.running_site import RunningSite

REPO = Path(__file__).resolve().parent.parent
PROBLEM = "aot_compiled_sum"
PASSWORD = "a-long-password-1"

# Run in the site's environment: the course, its instructor and two other students, signed in.
SESSIONS = """
import json
import django
django.setup()
from django.contrib.auth.models import User
from django.test import Client
from webapp.courses.models import Course, Membership

course = Course.objects.create(slug="bench", title="Bench")
old = Course.objects.create(slug="bench-old", title="Bench (old enrolment)")
sessions = {}
for name in ("grace", "ada", "bob"):
    user = User.objects.create_user(name, password="a-long-password-1")
    client = Client()
    client.force_login(user)
    sessions[name] = client.cookies["sessionid"].value
Membership.objects.create(course=course, user=User.objects.get(username="grace"), role="instructor")
print(json.dumps(sessions))
"""

# The old roster page's enrolment: every row in one transaction (get_or_create an account
# without a password, and a membership), as it was before invitations.
OLD_ENROL = """
import sys
import django
django.setup()
from django.contrib.auth.models import User
from django.db import transaction
from webapp.courses.models import Course, Membership

course = Course.objects.get(slug="bench-old")
rows = int(sys.argv[1])
with transaction.atomic():
    for n in range(rows):
        name = f"old{n:05d}"
        user, made = User.objects.get_or_create(username=name, defaults={"email": name + "@school.example"})
        if made:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        Membership.objects.get_or_create(course=course, user=user)
"""


class Session:
    """One signed-in person's HTTP client, with a CSRF cookie and header of its own."""

    def __init__(self, site: str, sessionid: str) -> None:
        self.site = site
        self.csrf = secrets.token_hex(16)  # a 32-character secret, as Django's cookie holds
        jar = http.cookiejar.CookieJar()
        for name, value in (("sessionid", sessionid), ("csrftoken", self.csrf)):
            jar.set_cookie(
                http.cookiejar.Cookie(
                    0,
                    name,
                    value,
                    None,
                    False,
                    "127.0.0.1",
                    False,
                    False,
                    "/",
                    True,
                    False,
                    None,
                    False,
                    None,
                    None,
                    {},
                )
            )
        self.location = ""
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect())

    def request(self, path: str, data: bytes | None = None, content_type: str = "") -> tuple[int, bytes, float]:
        headers = {"X-CSRFToken": self.csrf, "Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.site + path, data=data, headers=headers)
        start = time.monotonic()
        try:
            with self.opener.open(request, timeout=120) as response:
                status, body = response.status, response.read()
        except urllib.error.HTTPError as error:  # a redirect too (not followed)
            status, body = error.code, error.read()
            self.location = error.headers.get("Location", "")
        return status, body, time.monotonic() - start

    def post_form(self, path: str, fields: dict[str, str]) -> tuple[int, bytes, float]:
        return self.request(path, urllib.parse.urlencode(fields).encode(), "application/x-www-form-urlencoded")

    def post_file(self, path: str, field: str, name: str, content: bytes) -> tuple[int, bytes, float]:
        boundary = secrets.token_hex(12)
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
                "Content-Type: text/csv\r\n\r\n"
            ).encode()
            + content
            + f"\r\n--{boundary}--\r\n".encode()
        )
        return self.request(path, body, f"multipart/form-data; boundary={boundary}")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


class OthersWork:
    """Two students' draft saves every 0.2 s each, and one Submit, until ``stop``."""

    def __init__(self, students: list[Session]) -> None:
        self.latencies: dict[str, list[float]] = {"draft": [], "submit": []}
        self.failures: list[int] = []
        self.done = threading.Event()
        self.threads = [threading.Thread(target=self.drafts, args=(s,)) for s in students]
        self.threads.append(threading.Thread(target=self.submit, args=(students[0],)))

    def drafts(self, student: Session) -> None:
        n = 0
        while not self.done.is_set():
            status, _, took = student.post_form(f"/problems/{PROBLEM}/draft/", {"code": f"x = {n}\n"})
            self.record("draft", status, took, 204)
            n += 1
            time.sleep(0.2)

    def submit(self, student: Session) -> None:
        time.sleep(1.0)  # while the roster is under way
        code = (REPO / "solutions" / PROBLEM / "reference.py").read_text()
        status, _, took = student.post_form(f"/problems/{PROBLEM}/submit/", {"code": code})
        self.record("submit", status, took, 202)

    def record(self, kind: str, status: int, took: float, expected: int) -> None:
        self.latencies[kind].append(took)
        if status != expected:
            self.failures.append(status)

    def __enter__(self) -> OthersWork:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        for thread in self.threads:
            thread.join()

    def summary(self) -> str:
        drafts = self.latencies["draft"]
        every = drafts + self.latencies["submit"]
        return (
            f"{len(drafts)} draft saves: median {statistics.median(drafts) * 1000:.0f} ms, "
            f"max {max(drafts) * 1000:.0f} ms; "
            f"Submit {', '.join(f'{t * 1000:.0f} ms' for t in self.latencies['submit']) or 'not sent'}; "
            f"slowest of all {max(every) * 1000:.0f} ms; failed: {self.failures or 'none'}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--no-old", action="store_true", help="skip the old one-transaction enrolment")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jaxjudge-bench-roster-") as folder:
        database = os.environ.get("DATABASE_URL") or f"sqlite:///{Path(folder) / 'db.sqlite3'}"
        mail = Path(folder) / "mail"
        site = RunningSite(database, extra_env={"JAXJUDGE_EMAIL_FILE_PATH": str(mail)})
        try:
            env = {**site.env, "DJANGO_SETTINGS_MODULE": "webapp.settings"}
            made = subprocess.run([sys.executable, "-c", SESSIONS], cwd=REPO, env=env, capture_output=True, text=True)
            if made.returncode:
                raise SystemExit(made.stderr)
            sessions = json.loads(made.stdout.strip().splitlines()[-1])
            teacher, students = (
                Session(site.url, sessions["grace"]),
                [Session(site.url, sessions[n]) for n in ("ada", "bob")],
            )
            # A registrar's class list: each row's record (name, student id, section) is kept too.
            roster = "username,email,name,student_id,section\n" + "".join(
                f"student{n:05d},student{n:05d}@school.example,Student {n:05d},S{n:07d},{'ABCD'[n % 4]}\n"
                for n in range(args.rows)
            )
            print(
                f"{os.cpu_count()} cores; {args.rows} rows ({len(roster.encode()) / 1e6:.2f} MB); "
                f"{database.split(':')[0]}"
            )

            with OthersWork(students) as others:
                start = time.monotonic()
                status, _, took = teacher.post_file("/courses/bench/roster/", "roster", "roster.csv", roster.encode())
                if status != 302:
                    raise SystemExit(f"the upload was refused: {status}")
                upload_id = teacher.location.rsplit("#upload-", 1)[-1]
                while True:
                    status, body, _ = teacher.request(f"/courses/bench/roster/uploads/{upload_id}/")
                    progress = json.loads(body)
                    if progress["status"] in ("done", "failed"):
                        break
                    time.sleep(0.5)
                enrolled = time.monotonic() - start
            print(
                f"new (courses worker, batches): upload request {took * 1000:.0f} ms; {progress['status']} "
                f"{progress['done']}/{progress['total']} rows invited and emailed in {enrolled:.1f} s; "
                f"{others.summary()}"
            )
            if not args.no_old:
                with OthersWork(students) as others:
                    start = time.monotonic()
                    old = subprocess.run([sys.executable, "-c", OLD_ENROL, str(args.rows)], cwd=REPO, env=env)
                    enrolled = time.monotonic() - start
                print(
                    f"old (one transaction): {'done' if old.returncode == 0 else 'failed'} in {enrolled:.1f} s; "
                    f"{others.summary()}"
                )
        finally:
            site.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
