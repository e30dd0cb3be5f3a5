"""The whole site as ``make run`` starts it (gunicorn and a grading worker), on a database of its own."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from typing import Any
from urllib.parse import quote

from grader.problem import REPO_ROOT

READY_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url(settings_dict: dict[str, Any]) -> str:
    """A ``DATABASE_URL`` for the site's processes that names the database of these settings."""
    if settings_dict["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{settings_dict['NAME']}"
    user = quote(settings_dict["USER"] or "")
    password = quote(settings_dict["PASSWORD"] or "")
    return f"postgres://{user}:{password}@{settings_dict['HOST']}:{settings_dict['PORT']}/{settings_dict['NAME']}"


def this_tests_database() -> str:
    """The database of the running test (pytest-django's test database), as a ``DATABASE_URL``."""
    from django.db import connection

    return database_url(connection.settings_dict)


class RunningSite:
    """``python -m webapp.serve`` in the background; ``url`` once the web server and a worker are up."""

    def __init__(
        self,
        database: str,
        *,
        graders: int = 1,
        setup: bool = True,
        extra_env: dict[str, str] | None = None,
        serve_args: tuple[str, ...] = (),
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "DATABASE_URL": database, **(extra_env or {})}
        self.lines: list[str] = []
        command = [sys.executable, "-m", "webapp.serve", "--port", str(self.port), "--graders", str(graders)]
        self.process = subprocess.Popen(
            [*command, *serve_args, *([] if setup else ["--no-setup"])],
            cwd=REPO_ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        self._wait_until_ready(graders)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def _wait_until_ready(self, graders: int) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("the site exited while starting:\n" + "".join(self.lines))
            workers_ready = sum("ready on queue" in line for line in self.lines)
            if workers_ready >= graders and self._answers():
                return
            time.sleep(0.2)
        raise RuntimeError("the site did not start in time:\n" + "".join(self.lines))

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
