"""Batch autograding end to end: a folder of generated student notebooks, graded as CI would.

Run: .venv/bin/python -m bench.autograde [--notebooks 40] [--jobs N] [--runs 3] [--with-faults]
                                         [--vs-nbgrader [--nbgrader-runs 1]]
     .venv/bin/python -m bench.autograde --scale 40 200 1000 [--scale-jobs 1 2 4]

It writes ``--notebooks`` student notebooks for ``aot_compiled_sum`` that all finish, in equal
shares: correct, wrong, a crashing cell, and correct with ``%timeit`` and ``%%time`` cells
(``--with-faults`` adds one that never ends and one that is not a notebook). Then it runs
``python -m grader autograde --timings`` on the folder ``--runs`` times (a fresh process each
time, as a CI job does, in cgroups of its own: ``BatchGroups``) and prints the median wall
time, notebooks per second, the batch's CPU-seconds (its own processes' and its sandboxes',
by the kernel's accounting; the machine's busy time beside them), the median per-notebook
verdict time, and where the median batch's CPU-seconds went, stage by stage, in lines that add
up to the total measured around it. Then the floor: the same notebooks' cells and the very calls
their gradings made, run in one plain warm process (``floor_cpu_seconds``), and the batch's
ratio to it. Last, the same correct code graded warm as a notebook and as a ``.py`` file, in
turn, at least 5 times each: the medians and the median difference (the cost of running a
notebook as Jupyter does).

``--vs-nbgrader`` then grades the same students' code, handed in to an nbgrader course
(``bench.nbgrader_course``), with nbgrader's serial ``autograde``, ``--nbgrader-runs`` times, and
prints both medians side by side with their ratio, and each grader's scores per kind of
notebook, as fractions of the points (nbgrader is installed into an environment of its own on
first use).

``--scale N ...`` instead grades one batch of each size, then the first size with each of
``--scale-jobs``: wall time, CPU-seconds a notebook, and the peak memory of the batch's own
processes and of the largest sandbox, so that a notebook's cost can be seen flat as a batch grows.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from grader.harness import grade_submission
from grader.problem import REPO_ROOT, load_problem
from grader.source import read_submission
from sandbox.host import cgroups
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


class BatchGroups:
    """The CPU time and memory of one batch, to the last process: the command runs in cgroups
    of its own (its workers stay there), and its sandboxes' CPU time is what the sandboxes'
    parent cgroup (``sandbox.host.cgroups``) gains meanwhile. Both are the kernel's own
    accounting, so their sum is every CPU-second the batch used, whatever else the machine
    runs. None of this where this user cannot make cgroups: then only the machine-wide busy
    time is measured."""

    def __init__(self) -> None:
        root = cgroups.CGROUP_ROOT
        self.v1 = (root / "cpuacct" / "cpuacct.usage").exists()
        self.version = 1 if self.v1 else 2
        name = f"jaxjudge-bench-{os.getpid()}-{time.monotonic_ns()}"
        self.cpu_group = (root / "cpuacct" if self.v1 else root) / name
        self.memory_group = root / "memory" / name if self.v1 else self.cpu_group
        self.sandboxes_group = (root / "cpuacct" if self.v1 else root) / cgroups.PARENT_NAME
        try:
            for group in {self.cpu_group, self.memory_group}:
                group.mkdir()
            self.usable = True
        except OSError:
            self.usable = False
        self._sandboxes_before = self.seconds(self.sandboxes_group)

    def seconds(self, group: Path) -> float:
        return cgroups.group_cpu_seconds(group, self.version) or 0.0

    def enter(self) -> None:
        """In the command's process, before it runs (``preexec_fn``): join the batch's groups."""
        for group in {self.cpu_group, self.memory_group}:
            (group / "cgroup.procs").write_text(str(os.getpid()))

    def command_cpu(self) -> float:
        return self.seconds(self.cpu_group) if self.usable else 0.0

    def sandboxes_cpu(self) -> float:
        return self.seconds(self.sandboxes_group) - self._sandboxes_before if self.usable else 0.0

    def command_peak_memory(self) -> int:
        """The most memory the command and its workers held at once (not the sandboxes')."""
        return cgroups.group_peak_memory_bytes(self.memory_group, self.version)

    def remove(self) -> None:
        for group in {self.cpu_group, self.memory_group}:
            with contextlib.suppress(OSError):
                group.rmdir()


@dataclass
class Batch:
    """One batch: wall time, CPU-seconds (machine-wide, and the batch's own by its cgroups),
    per-notebook seconds, verdict counts, scores by kind (fractions of the points) and the
    CLI's ``--timings``."""

    wall: float
    busy: float
    command_cpu: float
    sandboxes_cpu: float
    seconds: list[float]
    verdicts: dict[str, int]
    scores: dict[str, set[float]]
    timings: dict[str, Any]
    peak_memory: int  # the command's and its workers' at once (bytes)
    sandbox_peak_memory: int  # the most any one notebook's sandbox held

    @property
    def cpu(self) -> float:
        """The batch's own CPU-seconds where cgroups measured them, else the machine's busy time."""
        return self.command_cpu + self.sandboxes_cpu if self.command_cpu else self.busy


def run_batch(folder: Path, out: Path, jobs: int | None) -> Batch:
    """Grade the folder with ``grader autograde`` in a fresh process, as CI does."""
    timings = out.with_suffix(".timings.json")
    command = [sys.executable, "-m", "grader", "autograde", str(folder), "--problem", SLUG, "--out", str(out)]
    command += ["--timings", str(timings)]
    if jobs:
        command += ["--jobs", str(jobs)]
    groups = BatchGroups()
    try:
        started, busy = time.perf_counter(), busy_cpu_seconds()
        subprocess.run(
            command, check=True, capture_output=True, cwd=REPO_ROOT, preexec_fn=groups.enter if groups.usable else None
        )
        wall, busy = time.perf_counter() - started, busy_cpu_seconds() - busy
        command_cpu, sandboxes_cpu, peak = groups.command_cpu(), groups.sandboxes_cpu(), groups.command_peak_memory()
    finally:
        groups.remove()
    with (out / "results.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    verdicts: dict[str, int] = {}
    scores: dict[str, set[float]] = {}
    for row in rows:
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
        kind = row["student"].rpartition("-")[2]
        scores.setdefault(kind, set()).add(round(float(row["score"]) / float(row["max_score"]), 2))
    seconds = [float(row["seconds"]) for row in rows]
    sandbox_peak = 0
    for report in (out / "reports").glob("*.json"):
        sandbox_peak = max(sandbox_peak, int(json.loads(report.read_text())["sandbox"].get("peak_memory_bytes") or 0))
    return Batch(
        wall, busy, command_cpu, sandboxes_cpu, seconds, verdicts, scores, json.loads(timings.read_text()),
        peak, sandbox_peak,
    )  # fmt: skip


def breakdown(batch: Batch) -> list[tuple[str, float]]:
    """The batch's CPU-seconds, stage by stage, ending with what no stage took and the total
    measured around it (the cgroups'), so that the lines add up to it exactly."""
    timings = batch.timings
    notebooks = timings["notebooks"]
    workers = timings["workers"].values()
    lines: list[tuple[str, float]] = [
        ("start-up: the batch's own process (Python, imports; results and outputs)", timings["main_process_cpu_s"]),
        (
            "start-up: importing the harness, once (the workers' fork server)",
            max((w.get("harness import (fork server of workers)", 0.0) for w in workers), default=0.0),
        ),
        (f"start-up: {len(workers)} workers starting", sum(w.get("worker start", 0.0) for w in workers)),
    ]
    sandbox_total = sum(n["sandbox"].get("total", 0.0) for n in notebooks)
    if batch.command_cpu:
        lines.append(
            (
                "start-up: the sandboxes' fork servers (JAX and IPython imported), their forks and clean-ups",
                batch.sandboxes_cpu - sandbox_total,
            )
        )
    harness_stages = sorted({stage for n in notebooks for stage in n["harness"] if stage != "total"})
    for stage in harness_stages:
        lines.append((f"notebooks, harness: {stage}", sum(n["harness"].get(stage, 0.0) for n in notebooks)))
    for stage in ("kernel start", "the notebook's cells", "the tests' calls and the insight"):
        lines.append((f"notebooks, sandbox: {stage}", sum(n["sandbox"].get(stage, 0.0) for n in notebooks)))
    harness_total = sum(n["harness"].get("total", 0.0) for n in notebooks)
    worker_rest = sum(w.get("cpu_s", 0.0) - w.get("worker start", 0.0) for w in workers) - harness_total
    lines.append(("workers, between notebooks (taking work, sending results)", worker_rest))
    measured = batch.cpu
    rest = measured - sum(seconds for _, seconds in lines)
    lines.append(("what no stage took (exiting, the kernel's work for the processes)", rest))
    around = "its cgroups" if batch.command_cpu else "the machine's busy time"
    lines.append((f"total, measured around the batch ({around})", measured))
    return lines


def print_breakdown(batch: Batch, count: int) -> None:
    print(f"where the batch's {batch.cpu:.1f} CPU-s went ({count} notebooks; CPU-s, and per notebook):")
    for name, seconds in breakdown(batch):
        print(f"  {seconds:7.2f}  {seconds / count:6.3f}  {name}")
    print(
        f"  XLA compiles in the sandboxes, wall s: "
        f"{sum(n['sandbox'].get('of it, XLA compiles (wall s)', 0.0) for n in batch.timings['notebooks']):.2f}; "
        f"tracing and lowering: "
        f"{sum(n['sandbox'].get('of it, tracing and lowering (wall s)', 0.0) for n in batch.timings['notebooks']):.2f}"
    )


Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def recorded_calls(folder: Path) -> dict[str, list[Call]]:
    """The calls of the student's function that each kind of notebook's grading makes, with
    their very inputs: one notebook of each kind graded here, as the batch grades it, with the
    harness's calls noted. (Every notebook of a kind holds the same code, so its examples,
    seeded from the code, are the same.)"""
    from grader.proxy import SubmissionProxy

    calls: dict[str, list[Call]] = {}
    original = SubmissionProxy._call_entry_point
    noting: list[Call] = []

    def noted(self: SubmissionProxy, name: str, *args: Any, **kwargs: Any) -> Any:
        noting.append((name, args, kwargs))
        return original(self, name, *args, **kwargs)

    problem = load_problem(SLUG)
    SubmissionProxy._call_entry_point = noted  # type: ignore[method-assign]
    try:
        with SandboxPool(get_backend(), notebook=True) as pool:
            for kind in KINDS:
                noting.clear()
                path = next(folder.glob(f"*-{kind}.ipynb"))
                with pool.sandbox() as session:
                    grade_submission(problem, read_submission(path), session=session)
                calls[kind] = list(noting)
    finally:
        SubmissionProxy._call_entry_point = original  # type: ignore[method-assign]
    return calls


def floor_cpu_seconds(folder: Path, calls: dict[str, list[Call]]) -> float:
    """The floor: the CPU-seconds one plain warm process takes to run every notebook's code
    cells (IPython runs them, magics and all, each notebook in a fresh namespace) and then the
    very calls its grading made, each to the end of its computation. No sandbox, no kernel, no
    harness, no reference, no report: the least any grader of these notebooks could spend.

    JAX's caches are emptied before each notebook: a notebook's compiles are its own work, which
    its grading checks was done (``aot_compiled_sum`` fails a submission that compiles nothing
    for a new length), so no grader giving the same verdicts could take them from another's."""
    import io

    import jax
    from IPython.core.interactiveshell import InteractiveShell

    # Every compile real, as in the sandboxes (the harness's disk cache is on in this process).
    jax.config.update("jax_enable_compilation_cache", False)
    shell = InteractiveShell.instance()

    def run(path: Path) -> None:
        kind = path.stem.rpartition("-")[2]
        shell.reset(new_session=False)
        jax.clear_caches()
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code" or {"tests", "hidden-tests"} & set(cell.metadata.get("tags", [])):
                continue
            if not shell.run_cell(cell.source, silent=True).success:
                return  # the grader stops at a failing cell too: no tests run
        for name, args, kwargs in calls.get(kind, []):
            with contextlib.suppress(Exception):
                jax.block_until_ready(shell.user_ns[name](*args, **kwargs))

    paths = sorted(folder.glob("*.ipynb"))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for kind in KINDS:  # warm: JAX's and IPython's first use, not counted
            run(next(folder.glob(f"*-{kind}.ipynb")))
        started = time.process_time()
        for path in paths:
            run(path)
        return time.process_time() - started


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


def scale(sizes: list[int], jobs: list[int]) -> None:
    """One batch of each size (default jobs), then the first size with each number of jobs:
    whether a notebook costs the same in a batch of 1,000 as in one of 40, and what jobs buy."""
    print("| notebooks | jobs | wall s | notebooks/s | CPU-s | CPU-s a notebook | peak memory: batch, one sandbox |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    runs = [(size, None) for size in sizes] + [(sizes[0], count) for count in jobs]
    with tempfile.TemporaryDirectory(prefix="jaxjudge-bench-") as directory:
        for number, (size, count) in enumerate(runs):
            folder = Path(directory, f"submissions{size}")
            if not folder.exists():
                folder.mkdir()
                write_batch(folder, size, False)
            batch = run_batch(folder, Path(directory, f"out{number}"), count)
            assert sum(batch.verdicts.values()) == size and "internal_error" not in batch.verdicts, batch.verdicts
            print(
                f"| {size} | {count or 'default'} | {batch.wall:.1f} | {size / batch.wall:.2f} | {batch.cpu:.1f} | "
                f"{batch.cpu / size:.3f} | {batch.peak_memory / 2**20:.0f} MiB, "
                f"{batch.sandbox_peak_memory / 2**20:.0f} MiB |",
                flush=True,
            )
            shutil.rmtree(Path(directory, f"out{number}"), ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=int, default=40)
    parser.add_argument("--jobs", type=int, help="autograde's --jobs (default: its own, the cores)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--with-faults", action="store_true", help="add a hanging notebook and a non-notebook")
    parser.add_argument("--vs-nbgrader", action="store_true", help="then the same code under nbgrader's autograde")
    parser.add_argument("--nbgrader-runs", type=int, default=1, help="nbgrader batches (minutes each)")
    parser.add_argument(
        "--scale",
        type=int,
        nargs="+",
        metavar="N",
        help="instead: one batch of each size N (and of the first size with each of --scale-jobs), "
        "with its wall time, CPU-s a notebook and peak memory",
    )
    parser.add_argument("--scale-jobs", type=int, nargs="*", default=[1, 2, 4], metavar="J")
    args = parser.parse_args()
    if args.scale:
        scale(args.scale, args.scale_jobs)
        return
    batches: list[Batch] = []
    with tempfile.TemporaryDirectory(prefix="jaxjudge-bench-") as directory:
        folder = Path(directory, "submissions")
        folder.mkdir()
        write_batch(folder, args.notebooks, args.with_faults)
        total = len(list(folder.iterdir()))
        for run in range(args.runs):
            batch = run_batch(folder, Path(directory, f"out{run}"), args.jobs)
            batches.append(batch)
            print(
                f"run {run + 1}: {total} notebooks in {batch.wall:.1f} s ({total / batch.wall:.2f}/s), "
                f"{batch.cpu:.1f} CPU-s (the batch's own; the machine was busy {batch.busy:.1f} CPU-s): "
                f"{batch.verdicts}",
                flush=True,
            )
        floor = floor_cpu_seconds(folder, recorded_calls(folder)) if not args.with_faults else None
    wall = statistics.median(batch.wall for batch in batches)
    print(f"median wall time {wall:.1f} s for {total} notebooks: {total / wall:.2f} notebooks/s")
    middle = sorted(batches, key=lambda batch: batch.cpu)[len(batches) // 2]
    print(f"median CPU time {middle.cpu:.1f} CPU-s: {middle.cpu / total:.2f} CPU-s a notebook")
    print(f"median per-notebook verdict time {statistics.median(s for b in batches for s in b.seconds):.2f} s")
    print_breakdown(middle, total)
    if floor is not None:
        print(
            f"the floor (the same cells and test calls in one plain warm process): {floor:.1f} CPU-s, "
            f"{floor / total:.3f} a notebook; the batch is {middle.cpu / floor:.2f}x its floor"
        )
    scores = batches[-1].scores
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
