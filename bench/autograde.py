"""Batch autograding end to end: a folder of generated student notebooks, graded as CI would.

Run: .venv/bin/python -m bench.autograde [--notebooks 40] [--jobs N] [--runs 3] [--with-faults]

It writes ``--notebooks`` student notebooks for ``aot_compiled_sum`` that all finish, in equal
shares: correct, wrong, a crashing cell, and correct with ``%timeit`` and ``%%time`` cells
(``--with-faults`` adds one that never ends and one that is not a notebook). Then it runs
``python -m grader autograde`` on the folder ``--runs`` times (a fresh process each time, as a
CI job does) and prints the median wall time, notebooks per second, the machine's busy
CPU-seconds (all processes, sandboxes included: steadier than wall time on a shared machine)
and the median per-notebook verdict time. Last, the same correct code graded warm as a
notebook and as a ``.py`` file, in turn, at least 5 times each: the medians and the median
difference (the cost of running a notebook as Jupyter does).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from grader.harness import grade_submission
from grader.problem import REPO_ROOT, load_problem
from grader.source import read_submission
from sandbox.backends import get_backend
from sandbox.pool import SandboxPool

SLUG = "aot_compiled_sum"
SOLUTIONS = REPO_ROOT / "solutions" / SLUG
KINDS: dict[str, tuple[str, list[str]]] = {
    "correct": ((SOLUTIONS / "reference.py").read_text(), []),
    "wrong": ((SOLUTIONS / "wrong_value.py").read_text(), []),
    "crashing": ("import jax\n\nscale = 1 / 0\n", []),
    "timeit": (
        (SOLUTIONS / "reference.py").read_text(),
        ["%timeit -n5 -r2 aot_compiled_sum(jnp.ones(64))", "%%time\ntotal = aot_compiled_sum(jnp.arange(10))"],
    ),
}
FAULTS: dict[str, tuple[str, list[str]]] = {"hanging": ("while True:\n    pass\n", [])}


def student_notebook(solution: str, extra_cells: list[str]) -> nbformat.NotebookNode:
    notebook = load_problem(SLUG).student_notebook()
    for cell in notebook.cells:
        if "starter" in cell.metadata.get("tags", []):
            cell.source = solution
    notebook.cells += [nbformat.v4.new_code_cell(source) for source in extra_cells]
    return notebook


def write_batch(folder: Path, count: int, with_faults: bool) -> None:
    kinds = list(KINDS.items())
    for number in range(count):
        kind, (solution, extra) = kinds[number % len(kinds)]
        nbformat.write(student_notebook(solution, extra), folder / f"student{number:03d}-{kind}.ipynb")
    if with_faults:
        for kind, (solution, extra) in FAULTS.items():
            nbformat.write(student_notebook(solution, extra), folder / f"student-{kind}.ipynb")
        (folder / "student-not-a-notebook.ipynb").write_text("print('this is not a notebook')\n")


def busy_cpu_seconds() -> float:
    """CPU time this machine has spent busy so far, all processes (sandboxes too), from /proc/stat."""
    with open("/proc/stat") as handle:
        user, nice, system, _idle, _iowait, irq, softirq = (int(n) for n in handle.readline().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def run_batch(folder: Path, out: Path, jobs: int | None) -> tuple[float, float, list[float], dict[str, int]]:
    """Wall time, machine-wide busy CPU-seconds, per-notebook seconds and verdict counts of one batch."""
    command = [sys.executable, "-m", "grader", "autograde", str(folder), "--problem", SLUG, "--out", str(out)]
    if jobs:
        command += ["--jobs", str(jobs)]
    started, busy = time.perf_counter(), busy_cpu_seconds()
    subprocess.run(command, check=True, capture_output=True, cwd=REPO_ROOT)
    wall, busy = time.perf_counter() - started, busy_cpu_seconds() - busy
    with (out / "results.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    verdicts: dict[str, int] = {}
    for row in rows:
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
    return wall, busy, [float(row["seconds"]) for row in rows], verdicts


def notebook_against_py(runs: int) -> tuple[float, float, float]:
    """Warm verdict times of the reference as a one-cell notebook and as a .py file, graded in
    turn ``runs`` times after one pair to warm up: the two medians and the median difference."""
    problem = load_problem(SLUG)
    with tempfile.TemporaryDirectory() as directory:
        py = Path(directory, "student.py")
        py.write_text((SOLUTIONS / "reference.py").read_text())
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(py.read_text())])
        ipynb = Path(directory, "student.ipynb")
        nbformat.write(notebook, ipynb)
        times: dict[str, list[float]] = {"ipynb": [], "py": []}
        with SandboxPool(get_backend(), notebook=True) as pool:
            for _ in range(runs + 1):
                for kind, path in (("ipynb", ipynb), ("py", py)):
                    source = read_submission(path)
                    pool.wait_ready()
                    started = time.perf_counter()
                    with pool.sandbox() as session:
                        report = grade_submission(problem, source, session=session)
                    times[kind].append(time.perf_counter() - started)
                    assert report.accepted, report.summary()
    as_notebook, as_py = times["ipynb"][1:], times["py"][1:]  # the first pair warmed up
    differences = [a - b for a, b in zip(as_notebook, as_py, strict=True)]
    return statistics.median(as_notebook), statistics.median(as_py), statistics.median(differences)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=int, default=40)
    parser.add_argument("--jobs", type=int, help="autograde's --jobs (default: its own, the cores)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--with-faults", action="store_true", help="add a hanging notebook and a non-notebook")
    args = parser.parse_args()
    walls, busy_seconds, per_notebook = [], [], []
    with tempfile.TemporaryDirectory(prefix="jaxjudge-bench-") as directory:
        folder = Path(directory, "submissions")
        folder.mkdir()
        write_batch(folder, args.notebooks, args.with_faults)
        total = len(list(folder.iterdir()))
        for run in range(args.runs):
            wall, busy, seconds, verdicts = run_batch(folder, Path(directory, f"out{run}"), args.jobs)
            walls.append(wall)
            busy_seconds.append(busy)
            per_notebook += seconds
            print(
                f"run {run + 1}: {total} notebooks in {wall:.1f} s ({total / wall:.2f}/s), "
                f"{busy:.1f} CPU-s busy: {verdicts}",
                flush=True,
            )
    wall = statistics.median(walls)
    print(f"median wall time {wall:.1f} s for {total} notebooks: {total / wall:.2f} notebooks/s")
    busy = statistics.median(busy_seconds)
    print(f"median machine-wide busy CPU time {busy:.1f} CPU-s: {busy / total:.2f} CPU-s a notebook")
    print(f"median per-notebook verdict time {statistics.median(per_notebook):.2f} s")
    pairs = max(args.runs, 5)
    as_notebook, as_py, difference = notebook_against_py(pairs)
    print(
        f"one correct notebook, warm, {pairs} pairs: {as_notebook:.2f} s; the same code as .py: {as_py:.2f} s "
        f"(median difference {difference:+.2f} s)"
    )


if __name__ == "__main__":
    main()
