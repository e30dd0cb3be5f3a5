"""Batch autograding end to end: a folder of generated student notebooks, graded as CI would.

Run: .venv/bin/python -m bench.autograde [--notebooks 40] [--jobs N] [--runs 3] [--with-faults]
                                         [--vs-nbgrader [--nbgrader-runs 1]]

It writes ``--notebooks`` student notebooks for ``aot_compiled_sum`` that all finish, in equal
shares: correct, wrong, a crashing cell, and correct with ``%timeit`` and ``%%time`` cells
(``--with-faults`` adds one that never ends and one that is not a notebook). Then it runs
``python -m grader autograde`` on the folder ``--runs`` times (a fresh process each time, as a
CI job does) and prints the median wall time, notebooks per second, the machine's busy
CPU-seconds (all processes, sandboxes included: steadier than wall time on a shared machine)
and the median per-notebook verdict time. Last, the same correct code graded warm as a
notebook and as a ``.py`` file, in turn, at least 5 times each: the medians and the median
difference (the cost of running a notebook as Jupyter does).

``--vs-nbgrader`` then grades the same students' code, handed in to an nbgrader course
(``bench.nbgrader_course``), with nbgrader's serial ``autograde``, ``--nbgrader-runs`` times, and
prints both medians side by side with their ratio, and each grader's scores per kind of
notebook, as fractions of the points (nbgrader is installed into an environment of its own on
first use).
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
from sandbox.host.backends import get_backend
from sandbox.host.prestarted import SandboxPool

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
    for number in range(count):
        kind, solution, extra = student_code(number)
        nbformat.write(student_notebook(solution, extra), folder / f"student{number:03d}-{kind}.ipynb")
    if with_faults:
        for kind, (solution, extra) in FAULTS.items():
            nbformat.write(student_notebook(solution, extra), folder / f"student-{kind}.ipynb")
        (folder / "student-not-a-notebook.ipynb").write_text("print('this is not a notebook')\n")


def student_code(number: int) -> tuple[str, str, list[str]]:
    """The kind, code and extra cells of the batch's ``number``-th notebook."""
    kind, (solution, extra) = list(KINDS.items())[number % len(KINDS)]
    return kind, solution, extra


def busy_cpu_seconds() -> float:
    """CPU time this machine has spent busy so far, all processes (sandboxes too), from /proc/stat."""
    with open("/proc/stat") as handle:
        user, nice, system, _idle, _iowait, irq, softirq = (int(n) for n in handle.readline().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def run_batch(
    folder: Path, out: Path, jobs: int | None
) -> tuple[float, float, list[float], dict[str, int], dict[str, set[float]]]:
    """Wall time, machine-wide busy CPU-seconds, per-notebook seconds, verdict counts and the
    scores (fractions of the points) by kind of notebook, of one batch."""
    command = [sys.executable, "-m", "grader", "autograde", str(folder), "--problem", SLUG, "--out", str(out)]
    if jobs:
        command += ["--jobs", str(jobs)]
    started, busy = time.perf_counter(), busy_cpu_seconds()
    subprocess.run(command, check=True, capture_output=True, cwd=REPO_ROOT)
    wall, busy = time.perf_counter() - started, busy_cpu_seconds() - busy
    with (out / "results.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    verdicts: dict[str, int] = {}
    scores: dict[str, set[float]] = {}
    for row in rows:
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
        kind = row["student"].rpartition("-")[2]
        scores.setdefault(kind, set()).add(round(float(row["score"]) / float(row["max_score"]), 2))
    return wall, busy, [float(row["seconds"]) for row in rows], verdicts, scores


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


def against_nbgrader(count: int, runs: int, jaxjudge_wall: float, jaxjudge_scores: dict[str, set[float]]) -> None:
    """nbgrader's serial autograde of the same students' code, beside jaxjudge's batch."""
    from bench.nbgrader_course import Course

    with tempfile.TemporaryDirectory(prefix="jaxjudge-bench-nbgrader-") as directory:
        course = Course(Path(directory))
        kinds = {}
        for number in range(count):
            kind, solution, extra = student_code(number)
            kinds[f"student{number:03d}"] = kind
            course.hand_in(f"student{number:03d}", solution, extra)
        walls, scores = [], {}
        for run in range(runs):
            started = time.perf_counter()
            scores = course.autograde()
            walls.append(time.perf_counter() - started)
            print(f"nbgrader run {run + 1}: {count} notebooks in {walls[-1]:.1f} s", flush=True)
    wall = statistics.median(walls)
    print(
        f"side by side, {count} notebooks: jaxjudge {jaxjudge_wall:.1f} s, nbgrader's serial autograde "
        f"{wall:.1f} s: jaxjudge {wall / jaxjudge_wall:.1f}x faster"
    )
    for kind in KINDS:
        theirs = sorted({round(score, 2) for student, score in scores.items() if kinds[student] == kind})
        print(
            f"  {kind}: scores, as fractions of the points: jaxjudge {sorted(jaxjudge_scores[kind])}, nbgrader {theirs}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=int, default=40)
    parser.add_argument("--jobs", type=int, help="autograde's --jobs (default: its own, the cores)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--with-faults", action="store_true", help="add a hanging notebook and a non-notebook")
    parser.add_argument("--vs-nbgrader", action="store_true", help="then the same code under nbgrader's autograde")
    parser.add_argument("--nbgrader-runs", type=int, default=1, help="nbgrader batches (minutes each)")
    args = parser.parse_args()
    walls, busy_seconds, per_notebook = [], [], []
    with tempfile.TemporaryDirectory(prefix="jaxjudge-bench-") as directory:
        folder = Path(directory, "submissions")
        folder.mkdir()
        write_batch(folder, args.notebooks, args.with_faults)
        total = len(list(folder.iterdir()))
        for run in range(args.runs):
            wall, busy, seconds, verdicts, scores = run_batch(folder, Path(directory, f"out{run}"), args.jobs)
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
    if args.vs_nbgrader:
        against_nbgrader(args.notebooks, args.nbgrader_runs, wall, scores)
    pairs = max(args.runs, 5)
    as_notebook, as_py, difference = notebook_against_py(pairs)
    print(
        f"one correct notebook, warm, {pairs} pairs: {as_notebook:.2f} s; the same code as .py: {as_py:.2f} s "
        f"(median difference {difference:+.2f} s)"
    )


if __name__ == "__main__":
    main()
