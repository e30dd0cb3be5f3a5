"""The whole suite in lanes side by side: ``python -m tests.lanes`` (what ``make test`` runs).

Much of the suite waits rather than computes: on sandboxes starting, browsers, subprocesses,
a database restarting. One pytest run kept about 55% of this machine's 2 cores busy, so the
suite runs as two lanes at once. A third lane made the run slower, not faster: with two the
machine is already busy nearly all the time.

The lanes are balanced by measured time, not by hand: ``tests/lane_durations.json`` holds the
seconds each test file took, and those of the two fixed steps (lint, and the PostgreSQL pass
that runs the grading queue's tests again on a throwaway server). The longest goes first into
the lighter lane, and so on; a file not measured yet counts as ``default_s``. Each lane is a
few commands one after another, with one pytest run for all its files, so that pytest's start
and the session's fixtures are paid once a lane.

Each lane's output goes to ``out/lane-NAME.log`` and is shown when every lane has ended, with
how long each took; the exit status is 0 only if every command of every lane passed. Each run
also writes what it measured to ``out/lane-NAME.json``:

- ``python -m tests.lanes --record`` keeps those measurements in ``tests/lane_durations.json``;
- ``python -m tests.lanes --measure PATH...`` measures only the given test files, one pytest run;
- ``python -m tests.lanes --plan`` shows the lanes and their expected minutes, and runs nothing.

Loaded as a pytest plugin (``-p tests.lanes --lane-timing FILE``), this module writes the
seconds each test file took (setup, call and teardown of all its tests) to FILE.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DURATIONS = ROOT / "tests" / "lane_durations.json"
OUT = Path("out")
LANE_NAMES = ("one", "two")
PYTEST = [sys.executable, "-m", "pytest", "--durations=15", "-p", "tests.lanes"]
# The steps that are not test files, by the name their seconds are kept under.
STEPS: dict[str, list[str]] = {
    "lint": ["make", "--no-print-directory", "lint"],
    "postgres": [sys.executable, "-m", "tests.postgres"],
}


# -- the plan: which lane runs what ----------------------------------------------------------


def test_files(root: Path = ROOT) -> list[str]:
    """Every test file of the suite, as a path from the checkout's root."""
    return sorted(path.relative_to(root).as_posix() for path in (root / "tests").rglob("test_*.py"))


def balance(seconds: Mapping[str, float], lanes: int = 2) -> list[list[str]]:
    """Share ``seconds``' items out among ``lanes`` lanes so that their totals come out close:
    the longest first, each into the lane with the least so far (ties: the first such lane, then
    the items by name, so that a plan does not change from one run to the next)."""
    shares: list[list[str]] = [[] for _ in range(lanes)]
    totals = [0.0] * lanes
    for item in sorted(seconds, key=lambda name: (-seconds[name], name)):
        lightest = totals.index(min(totals))
        shares[lightest].append(item)
        totals[lightest] += seconds[item]
    return shares


def expected_seconds(durations: Mapping[str, Any], files: Iterable[str]) -> dict[str, float]:
    """The seconds each step and each of ``files`` is expected to take, from ``durations``
    (a file not measured yet counts as its ``default_s``)."""
    measured = durations.get("files", {})
    default = float(durations.get("default_s", 10.0))
    expected = {step: float(durations.get("steps", {}).get(step, default)) for step in STEPS}
    expected.update({path: float(measured.get(path, default)) for path in files})
    return expected


def commands_of(share: list[str]) -> list[list[str]]:
    """A lane's commands: lint if it is in the share, one pytest run of its files, then the
    PostgreSQL pass if it is in the share."""
    files = sorted(item for item in share if item not in STEPS)
    commands = [STEPS["lint"]] if "lint" in share else []
    if files:
        commands.append([*PYTEST, *files])
    if "postgres" in share:
        commands.append(STEPS["postgres"])
    return commands


def read_durations(path: Path = DURATIONS) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.exists() else {}


# -- running the lanes ----------------------------------------------------------------------


@dataclass
class Lane:
    name: str
    commands: list[list[str]]
    log: Path
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    step_seconds: dict[str, float] = field(default_factory=dict)

    def run(self) -> None:
        timing = self.log.with_suffix(".json")
        timing.unlink(missing_ok=True)
        started = time.monotonic()
        with self.log.open("w") as out:
            for command in self.commands:
                if command[: len(PYTEST)] == PYTEST:
                    command = [*command, "--lane-timing", str(timing)]
                out.write(f"$ {' '.join(command)}\n")
                out.flush()
                command_started = time.monotonic()
                result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                for step, step_command in STEPS.items():
                    if command == step_command:
                        self.step_seconds[step] = time.monotonic() - command_started
                if result.returncode:
                    self.failed.append(" ".join(command[:4]) + " ...")
        self.seconds = time.monotonic() - started
        files = json.loads(timing.read_text())["files"] if timing.exists() else {}
        timing.write_text(json.dumps({"files": files, "steps": self.step_seconds}, indent=1) + "\n")


def plan(durations: Mapping[str, Any]) -> list[tuple[str, list[str], float]]:
    """Each lane's name, its share of the steps and files, and the seconds it is expected to take."""
    expected = expected_seconds(durations, test_files())
    shares = balance(expected, len(LANE_NAMES))
    return [
        (name, share, sum(expected[item] for item in share)) for name, share in zip(LANE_NAMES, shares, strict=True)
    ]


def run_lanes() -> int:
    OUT.mkdir(exist_ok=True)
    lanes = [Lane(name, commands_of(share), OUT / f"lane-{name}.log") for name, share, _ in plan(read_durations())]
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
        print(f"{lane.name:<8} {lane.seconds / 60:5.1f} min  {status}")
    print("(python -m tests.lanes --record keeps these timings for the next run's lanes)")
    return 1 if any(lane.failed for lane in lanes) else 0


# -- keeping what was measured ------------------------------------------------------------------


def record(measurements: Iterable[Mapping[str, Any]], path: Path = DURATIONS) -> dict[str, Any]:
    """Write ``measurements`` (``{"files": {path: s}, "steps": {name: s}}`` each) over what
    ``path`` holds, whole seconds to the tenth; files that no longer exist are dropped."""
    durations = read_durations(path)
    durations.setdefault("default_s", 10.0)
    for kind in ("steps", "files"):
        kept = dict(durations.get(kind, {}))
        for measurement in measurements:
            kept.update({name: round(float(s), 1) for name, s in measurement.get(kind, {}).items()})
        durations[kind] = dict(sorted(kept.items()))
    existing = set(test_files(path.parents[1]))
    durations["files"] = {name: s for name, s in durations["files"].items() if name in existing}
    path.write_text(json.dumps(durations, indent=1) + "\n")
    return durations


def measure(paths: list[str]) -> int:
    """Run ``paths`` in one pytest run and keep the seconds each file took."""
    OUT.mkdir(exist_ok=True)
    timing = OUT / "lane-measure.json"
    timing.unlink(missing_ok=True)
    returncode = subprocess.run([*PYTEST, *paths, "--lane-timing", str(timing)]).returncode
    if timing.exists():
        record([json.loads(timing.read_text())])
    return returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.lanes", description="The whole suite in lanes side by side.")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--plan", action="store_true", help="show the lanes and their expected minutes")
    what.add_argument("--record", action="store_true", help="keep the last run's timings (out/lane-*.json)")
    what.add_argument("--measure", nargs="+", metavar="PATH", help="measure these test files only")
    options = parser.parse_args(argv)
    if options.plan:
        for name, share, seconds in plan(read_durations()):
            print(f"lane {name}: {seconds / 60:.1f} min expected")
            for command in commands_of(share):
                print("  $ " + " ".join(command))
        return 0
    if options.record:
        timings = [json.loads(path.read_text()) for path in sorted(OUT.glob("lane-*.json"))]
        record(timings)
        print(f"kept {len(timings)} lanes' timings in {DURATIONS.relative_to(ROOT)}")
        return 0
    if options.measure:
        return measure(options.measure)
    return run_lanes()


# -- the pytest plugin: seconds per test file -----------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--lane-timing", metavar="FILE", help="write the seconds each test file took to FILE (JSON)")


def pytest_configure(config: pytest.Config) -> None:
    target = config.getoption("--lane-timing")
    if target:
        config.pluginmanager.register(FileSeconds(Path(target)), "lane-timing")


class FileSeconds:
    """Adds up the seconds of each test file's tests and writes them when the session ends.
    Setup and teardown count too: a module's fixtures (a site, a browser) are its file's cost."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        path = report.nodeid.split("::", 1)[0]
        self.seconds[path] = self.seconds.get(path, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        files = {path: round(s, 1) for path, s in sorted(self.seconds.items())}
        self.target.write_text(json.dumps({"files": files}, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
