"""A throwaway PostgreSQL server for the tests: ``python -m tests.postgres [PYTEST ARGS]``.

It makes a fresh cluster in a temporary folder (``initdb``), starts it on a free port of
loopback, runs pytest with ``DATABASE_URL`` pointing at it (by default the tests of the
grading queue, submissions and workers), and removes the cluster afterwards. The server is
Debian's (``make test`` installs the ``postgresql`` package when it is missing). The tests
that restart the database find the cluster through ``JAXJUDGE_TEST_PGDATA``.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.webapp.support.running_site import free_port

# The tests that run on PostgreSQL as well as on SQLite: those that write to the database
# (test_worker's others are about cgroups, not the database), and the courses' rules.
QUEUE_TESTS = [
    "tests/webapp/workspace/test_run_and_submit.py",
    "tests/webapp/workspace/test_solution_gate.py",
    "tests/webapp/submissions/test_grading.py",
    "tests/webapp/submissions/test_attempts.py",
    "tests/webapp/submissions/test_regrade.py",
    "tests/webapp/submissions/test_worker.py::test_a_worker_killed_mid_grade_loses_nothing_and_the_submission_gets_one_verdict",
    "tests/webapp/site/test_scale.py",
    "tests/webapp/site/test_health.py",
    "tests/webapp/courses/test_deadlines.py",
    "tests/webapp/courses/test_pages.py",
    "tests/webapp/courses/test_rosters.py",
    "tests/webapp/courses/test_overrides_and_regrades.py",
    "tests/webapp/courses/test_instructors.py",
    # Rosters: consent, and a big roster invited in batches while another student saves drafts.
    "tests/webapp/courses/test_enrolment.py",
    # The problem statistics: the time to a first accept is worked out in each database's own SQL.
    "tests/webapp/courses/test_statistics.py",
    # The course's journeys (the section on running a course); its page-fit check is the same on both.
    "tests/webapp/site/test_course_journey.py::test_an_instructor_sets_up_and_runs_a_course_on_the_site_and_never_opens_the_admin",
    "tests/webapp/site/test_course_journey.py::test_an_lti_launch_signs_a_student_in_and_their_score_reaches_the_platform",
]
DATA_ENV = "JAXJUDGE_TEST_PGDATA"


def server_bin() -> Path:
    """The newest installed server's programs (Debian keeps them off PATH)."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"), key=lambda p: int(p.parent.parent.name))
    if not versions:
        raise SystemExit("error: no PostgreSQL server found; install it with: apt-get install postgresql")
    return versions[-1].parent


class Cluster:
    """One PostgreSQL cluster of its own, run by an unprivileged user when we are root."""

    def __init__(self, data: Path, port: int) -> None:
        self.data = data
        self.port = port
        self.bin = server_bin()
        self.url = f"postgres://jaxjudge@127.0.0.1:{port}/jaxjudge"

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if os.geteuid() == 0:  # the server refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

    def create(self) -> None:
        self.data.mkdir(parents=True)
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.data.parent, owner.pw_uid, owner.pw_gid)
            os.chown(self.data, owner.pw_uid, owner.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "jaxjudge", "--auth=trust", "-E", "UTF8", "--no-sync")
        # Loopback only; durability traded for speed, as befits a throwaway server.
        options = f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.data}"
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        (self.data / "jaxjudge.options").write_text(options)

    def start(self) -> None:
        options = (self.data / "jaxjudge.options").read_text()
        self._run("pg_ctl", "start", "-w", "-D", str(self.data), "-l", str(self.data / "server.log"), "-o", options)

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "stop", "-w", "-D", str(self.data), "-m", mode)

    def restart(self) -> None:
        """Stop the server, cutting every connection, and start it again."""
        self.stop()
        self.start()

    def create_database(self) -> None:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "jaxjudge", "jaxjudge")


def cluster_of_this_run() -> Cluster | None:
    """The cluster that ``python -m tests.postgres`` started for these tests, if any."""
    data = os.environ.get(DATA_ENV)
    if not data:
        return None
    return Cluster(Path(data), int(os.environ["JAXJUDGE_TEST_PGPORT"]))


@contextlib.contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """A new cluster with a ``jaxjudge`` database, running until the block ends, then removed."""
    folder = Path(tempfile.mkdtemp(prefix="jaxjudge-pg-"))
    folder.chmod(0o755)
    cluster = Cluster(folder / "data", free_port())
    try:
        cluster.create()
        cluster.start()
        cluster.create_database()
        yield cluster
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # it never started
            cluster.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    with throwaway_cluster() as cluster:
        env = {
            **os.environ,
            "DATABASE_URL": cluster.url,
            DATA_ENV: str(cluster.data),
            "JAXJUDGE_TEST_PGPORT": str(cluster.port),
        }
        print(f"PostgreSQL ({cluster.bin.parent.name}) at {cluster.url}", flush=True)
        # Options alone (-q, -x) still run the default tests; a path or node id chooses others.
        chosen = argv if any(not arg.startswith("-") for arg in argv) else [*argv, *QUEUE_TESTS]
        return subprocess.run([sys.executable, "-m", "pytest", *chosen], env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
