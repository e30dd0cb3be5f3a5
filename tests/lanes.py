"""The whole suite in lanes side by side: ``python -m tests.lanes`` (what ``make test`` runs).

Much of the suite waits rather than computes: on sandboxes starting, browsers, subprocesses,
a database restarting. One pytest run kept about 55% of this machine's 2 cores busy, so the
suite runs as two lanes at once, each a few commands one after another. Each lane's output
goes to ``out/lane-NAME.log`` and is shown when every lane has ended, with how long each took;
the exit status is 0 only if every command of every lane passed. Each pytest run lists its
slowest tests, to rebalance by.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

PYTEST = [sys.executable, "-m", "pytest", "--durations=15"]
# Beside lint and the PostgreSQL pass: the validation of every problem, the workspace's browser
# journeys, LTI against its test platform and the access table over every page; the suite lane
# has everything else.
SECOND_LANE = [
    "tests/grader/test_validate.py",
    "tests/webapp/site/browser",
    "tests/webapp/lti",
    "tests/webapp/site/test_access.py",
]

# Two roughly equal lanes, from the durations of earlier runs. A third lane made the run
# slower, not faster: with two the machine is already busy nearly all the time. The
# PostgreSQL pass (tests.postgres) runs the grading queue's tests again on a throwaway server.
LANES: dict[str, list[list[str]]] = {
    "suite": [
        [*PYTEST, "tests", *(f"--ignore={path}" for path in SECOND_LANE)],
    ],
    "lint-validate-browser-lti-postgres": [
        ["make", "--no-print-directory", "lint"],
        [*PYTEST, *SECOND_LANE],
        [sys.executable, "-m", "tests.postgres"],
    ],
}


@dataclass
class Lane:
    name: str
    commands: list[list[str]]
    log: Path
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def run(self) -> None:
        started = time.monotonic()
        with self.log.open("w") as out:
            for command in self.commands:
                out.write(f"$ {' '.join(command)}\n")
                out.flush()
                if subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode:
                    self.failed.append(" ".join(command[:4]) + " ...")
        self.seconds = time.monotonic() - started


def main() -> int:
    out = Path("out")
    out.mkdir(exist_ok=True)
    lanes = [Lane(name, commands, out / f"lane-{name}.log") for name, commands in LANES.items()]
    threads = [threading.Thread(target=lane.run, name=lane.name) for lane in lanes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for lane in lanes:
        print(f"\n===== lane {lane.name} ({lane.log}) =====", flush=True)
        print(lane.log.read_text(errors="replace"), flush=True)
    print("\n===== lanes =====")
    for lane in lanes:
        status = "passed" if not lane.failed else "FAILED: " + "; ".join(lane.failed)
        print(f"{lane.name:<32} {lane.seconds / 60:5.1f} min  {status}")
    return 1 if any(lane.failed for lane in lanes) else 0


if __name__ == "__main__":
    sys.exit(main())
