"""The production stack for real: ``docker-compose up`` with PostgreSQL and 2 grading workers.

A student signs up on the served site, submits a wrong and then a right solution, and both
verdicts come back through web → PostgreSQL → a worker's bubblewrap sandbox. It needs a
Docker engine and docker-compose, and is skipped with the reason where there is none. It
builds the images first (``make images``'s wheels, the base from ``JAXJUDGE_TEST_BASE_IMAGE``
or the local Debian base when one was made with ``make base-image``), under a project name of
its own, and removes the whole stack, volumes included, at the end.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.problem import REPO_ROOT, load_problem, solutions_dir
from tests.webapp.support.running_site import free_port

SLUG = "aot_compiled_sum"
LOCAL_BASE = "jaxjudge-base:bookworm"
SNOOPING = f"""
import jax.numpy as jnp

REFERENCE = open("/opt/jaxjudge/solutions/{SLUG}/reference.py").read()


def {SLUG}(x):
    return jnp.sum(x)
"""


def engine_problem() -> str | None:
    """Why the stack cannot run here, or None when it can."""
    if shutil.which("docker-compose") is None:
        return "docker-compose is not installed (apt-get install docker.io docker-compose)"
    try:
        subprocess.run(["docker", "info"], check=True, capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return "no Docker engine is reachable (start dockerd)"
    return None


pytestmark = pytest.mark.skipif(engine_problem() is not None, reason=f"compose stack: {engine_problem()}")


def base_image() -> str:
    if chosen := os.environ.get("JAXJUDGE_TEST_BASE_IMAGE"):
        return chosen
    local = subprocess.run(["docker", "image", "inspect", LOCAL_BASE], capture_output=True)
    return LOCAL_BASE if local.returncode == 0 else "python:3.11-slim"


class Stack:
    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.project = f"jaxjudge-test-{os.getpid()}"
        self.build_s = 0.0
        self.up_s = 0.0
        self.env_file = folder / "stack.env"
        self.env_file.write_text(
            "\n".join(
                [
                    "JAXJUDGE_SECRET_KEY=test-only-" + os.urandom(16).hex(),
                    "POSTGRES_PASSWORD=" + os.urandom(12).hex(),
                    f"JAXJUDGE_PORT={self.port}",
                    f"BASE_IMAGE={base_image()}",
                    "JAXJUDGE_VERSION=test",
                    "JAXJUDGE_RATE_LIMIT_PER_MINUTE=100",
                ]
            )
            + "\n"
        )

    def compose(self, *args: str, timeout: float = 900, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = ["docker-compose", "-p", self.project, "--env-file", str(self.env_file), *args]
        return subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout, check=check)

    def logs(self) -> str:
        return self.compose("logs", "--no-color", "--tail", "60", check=False).stdout


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-r", "requirements.txt", "-w", "deploy/wheels"],
        cwd=REPO_ROOT,
        check=True,
    )
    running = Stack(tmp_path_factory.mktemp("compose"))
    try:
        started = time.monotonic()
        running.compose("build")
        built = time.monotonic()
        running.compose("up", "-d", "--scale", "worker=2")
        running.build_s = built - started
        running.up_s = time.monotonic() - built
        yield running
    finally:
        print(running.logs())
        running.compose("down", "-v", "--remove-orphans", timeout=300, check=False)


class Browser:
    """Just enough of a browser: cookies, CSRF tokens, forms and JSON."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def get(self, path: str) -> tuple[int, str]:
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.status, response.read().decode()

    def csrf_token(self) -> str:
        return next(str(cookie.value) for cookie in self.cookies if cookie.name == "csrftoken")

    def post(self, path: str, fields: dict[str, str], *, json_reply: bool = False) -> tuple[int, Any]:
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": self.csrf_token()}).encode()
        headers = {"Referer": self.base + path, **({"Accept": "application/json"} if json_reply else {})}
        request = urllib.request.Request(self.base + path, data=data, headers=headers)
        with self.opener.open(request, timeout=30) as response:
            body = response.read().decode()
            return response.status, json.loads(body) if json_reply else body


def wait_for_health(stack: Stack, workers: int, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(stack.url + "/healthz", timeout=5) as response:
                last = json.loads(response.read())
                if last["workers"].get("default", 0) >= workers:
                    return dict(last)
        except (OSError, ValueError) as exc:
            last = exc
        time.sleep(1)
    raise AssertionError(f"the stack was not healthy with {workers} workers in {timeout}s: {last}\n{stack.logs()}")


def graded(browser: Browser, code: str) -> tuple[dict[str, Any], float]:
    """Submit ``code``; its final state (as the page polls it) and the seconds to the verdict."""
    started = time.monotonic()
    status, queued = browser.post(f"/problems/{SLUG}/submit/", {"code": code}, json_reply=True)
    assert status == 202, queued
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        _, body = browser.get(queued["status_url"])
        state = json.loads(body)
        if state["finished"]:
            return state, time.monotonic() - started
        time.sleep(0.2)
    raise AssertionError(f"submission {queued['id']} was not graded in time")


def test_the_stack_serves_and_grades_a_wrong_and_a_right_solution(stack: Stack) -> None:
    started = time.monotonic()
    health = wait_for_health(stack, workers=2, timeout=300)
    ready_s = time.monotonic() - started
    assert health["database"] == "ok"

    browser = Browser(stack.url)
    status, page = browser.get("/accounts/signup/")
    assert status == 200 and "csrfmiddlewaretoken" in page
    password = "a-long-password-" + os.urandom(4).hex()
    status, page = browser.post(
        "/accounts/signup/", {"username": "grace", "password1": password, "password2": password}
    )
    assert status == 200 and "grace" in page, "signed up and signed in"
    status, problem_page = browser.get(f"/problems/{SLUG}/")
    assert status == 200 and re.search(r"<textarea[^>]*name=\"code\"", problem_page)
    # The image collected its static files: hashed names, sent compressed, kept for a year.
    stylesheet = re.search(r'href="(/static/jaxjudge/site\.[0-9a-f]{12}\.css)"', problem_page)
    assert stylesheet, "the page links the collected stylesheet"
    request = urllib.request.Request(stack.url + stylesheet.group(1), headers={"Accept-Encoding": "br"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Content-Encoding"] == "br" and "immutable" in response.headers["Cache-Control"]

    wrong, wrong_s = graded(browser, (solutions_dir() / SLUG / "wrong_value.py").read_text())
    right, right_s = graded(browser, load_problem(SLUG).reference_solution.read_text())
    assert (wrong["verdict"], right["verdict"]) == ("wrong_answer", "accepted")

    # The sandbox in the worker's container sees no more than on a host: not the solutions
    # that lie in the same image.
    snooping, _ = graded(browser, SNOOPING)
    assert snooping["verdict"] == "runtime_error"
    assert "FileNotFoundError" in json.dumps(snooping), snooping

    workers = stack.compose("ps", "-q", "worker").stdout.split()
    assert len(workers) == 2
    print(
        f"\ncompose stack: build {stack.build_s:.1f} s, up (database, setup, web, 2 workers) {stack.up_s:.1f} s, "
        f"healthy with 2 workers {ready_s:.1f} s later, "
        f"wrong_answer in {wrong_s:.2f} s, accepted in {right_s:.2f} s"
    )
