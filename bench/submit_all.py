"""A warm Submit of every problem, right and wrong, and where its time goes.

Run: .venv/bin/python -m bench.submit_all [--runs 3] [--problem SLUG ...] [--write-table] [--same-source]
     .venv/bin/python -m bench.submit_all --first-vs-third [--problem SLUG ...] [--no-warm-up]

As the site grades: JAX already imported in this process (a worker's), a pool whose sandbox
has imported JAX and is ready before each Submit. For every problem it grades the reference
solution and its first known-wrong solution (``solutions/<slug>/wrong_*.py``) ``--runs``
times each, and a Run (visible tests only) of the reference, and prints the medians with
where a reference's Submit spent its time. Each grading is of a new edit of the file (a
comment added), as a student's next Submit is: its examples are its own (they are seeded
from the source), so what the harness remembers from earlier gradings helps only where
examples really repeat (fixed tests, shapes met before); ``--same-source`` grades the file
as it is every time, as a regrade does.

- XLA: the sandbox's backend compiles, how many and their seconds;
- staging: the sandbox's tracing and lowering;
- running: the rest of the sandbox's requests (executing, the runtime's own work);
- channel: waiting on replies beyond the sandbox's own seconds (encoding, pipes, scheduling);
- harness: everything else in this process (pytest, hypothesis, comparing), of which
  "reference" is the JAX compilation of the reference's answers.

``--write-table`` puts the table in docs/speed.md between its ``submit-all`` markers.

``--first-vs-third``: instead, as a worker just started meets its students. This process starts
as the site's worker does (``grader.handed_in.warm_up``: the harness imported, the pool's sandbox
ready, and the problems warmed, unless ``--no-warm-up``), then Submits the reference of every
problem three times, each a new edit, through the site's own call (``grade_text``), and prints
the first and the third Submit, their ratio, the harness's share of each and its CPU seconds
(which a busy machine stretches less than wall time), with the machine's state (load, CPUs,
one compile's time) before and after and the load beside each problem.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import os
import re
import secrets
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from bench.grade_latency import compile_milliseconds
from bench.latency import HarnessCompileClock
from bench.stats import add_problem_arguments
from grader.harness import enable_compilation_cache, grade_submission
from grader.problem import Problem, load_problem
from grader.report import Report
from grader.source import SubmissionSource, read_submission
from sandbox.host.backends import get_backend
from sandbox.host.prestarted import SandboxPool

SPEED_PAGE = Path(__file__).resolve().parent.parent / "docs" / "speed.md"
BEGIN, END = "<!-- submit-all: begin -->", "<!-- submit-all: end -->"


@dataclass
class Timing:
    """One grading: its wall time, verdict and the breakdown its report and clock give."""

    seconds: float
    verdict: str
    compiles: int
    xla: float
    staging: float
    running: float
    channel: float
    harness: float
    reference: float

    @classmethod
    def of(cls, report: Report, seconds: float, reference: float) -> Timing:
        sandbox = report.sandbox
        xla, staging = sandbox.get("compile_seconds", 0.0), sandbox.get("staging_seconds", 0.0)
        requests, round_trips = sandbox.get("request_seconds", 0.0), sandbox.get("round_trip_seconds", 0.0)
        return cls(
            seconds=seconds,
            verdict=str(report.verdict),
            compiles=sandbox.get("compiles", 0),
            xla=xla,
            staging=staging,
            running=max(0.0, requests - xla - staging),
            channel=max(0.0, round_trips - requests),
            harness=max(0.0, seconds - round_trips),
            reference=reference,
        )


def median_of(timings: list[Timing], field: str) -> float:
    return statistics.median(getattr(timing, field) for timing in timings)


_edits = itertools.count(1)
# Edits of this run only: the harness keeps its answers on disk from one process to the next,
# so an edit a former run made would meet examples whose answers are remembered already.
_RUN = secrets.token_hex(4)


def next_edit(source: SubmissionSource) -> SubmissionSource:
    """The source as a student hands it in again: a comment added, so that, as on the site,
    each Submit meets examples of its own (they are seeded from the source) and nothing the
    harness remembers from another grading's examples answers for this one."""
    return dataclasses.replace(source, text=f"{source.text}\n# edit {next(_edits)} of run {_RUN}\n")


def time_gradings(
    problem: Problem,
    path: Path,
    pool: SandboxPool,
    clock: HarnessCompileClock,
    runs: int,
    hidden: bool = True,
    same_source: bool = False,
) -> list[Timing]:
    timings = []
    for _ in range(runs):
        source = read_submission(path) if same_source else next_edit(read_submission(path))
        pool.wait_ready()  # as in a worker between submissions
        before = clock.seconds
        started = time.perf_counter()
        with pool.sandbox() as session:
            report = grade_submission(problem, source, session=session, include_hidden=hidden)
        timings.append(Timing.of(report, time.perf_counter() - started, clock.seconds - before))
    return timings


COLUMNS = (
    "problem",
    "Submit (reference)",
    "wrong",
    "ratio",
    "Run",
    "compiles",
    "XLA s",
    "staging s",
    "running s",
    "channel s",
    "harness s",
    "of it, reference s",
)
BREAKDOWN = ("xla", "staging", "running", "channel", "harness", "reference")
HEADER = "| " + " | ".join(COLUMNS) + " |\n|---|" + "---:|" * (len(COLUMNS) - 1)


def row(slug: str, right: list[Timing], wrong: list[Timing], run: list[Timing]) -> str:
    submit = median_of(right, "seconds")
    wrong_submit = median_of(wrong, "seconds") if wrong else float("nan")
    cells = [
        slug,
        f"{submit:.2f} s",
        f"{wrong_submit:.2f} s ({wrong[0].verdict})" if wrong else "-",
        f"{wrong_submit / submit:.2f}×" if wrong else "-",
        f"{median_of(run, 'seconds'):.2f} s",
        f"{statistics.median(timing.compiles for timing in right):.0f}",
        *(f"{median_of(right, field):.2f}" for field in BREAKDOWN),
    ]
    return "| " + " | ".join(cells) + " |"


def summary(rights: dict[str, list[Timing]], wrongs: dict[str, list[Timing]], runs: dict[str, list[Timing]]) -> str:
    submits = [median_of(timings, "seconds") for timings in rights.values()]
    ratios = [
        median_of(wrongs[slug], "seconds") / median_of(rights[slug], "seconds") for slug in wrongs if wrongs[slug]
    ]
    slowest = max(rights, key=lambda slug: median_of(rights[slug], "seconds"))
    return (
        f"Reference Submit: median over problems {statistics.median(submits):.2f} s, slowest "
        f"{max(submits):.2f} s ({slowest}); wrong/reference at most {max(ratios, default=float('nan')):.2f}×; "
        f"Run at most {max(median_of(timings, 'seconds') for timings in runs.values()):.2f} s."
    )


def write_table(table: str) -> None:
    """Replace what stands between the speed page's markers with ``table``."""
    text = SPEED_PAGE.read_text()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"docs/speed.md has no {BEGIN} ... {END} markers to put the table between")
    SPEED_PAGE.write_text(pattern.sub(lambda _: f"{BEGIN}\n{table}\n{END}", text))


def machine_state() -> str:
    """What moves every figure here: the load, the cores this process may use, and the time of
    one fixed compile in a fresh process (``bench.grade_latency``'s calibration)."""
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    cores = len(os.sched_getaffinity(0))
    compile_ms = compile_milliseconds()
    return f"load average {load}; {cores} CPUs of {os.cpu_count()}; one XLA compile of jnp.sum {compile_ms:.1f} ms"


FIRST_VS_THIRD_HEADER = (
    "| problem | first Submit | third Submit | first/third | harness s (first) | harness share (first) "
    "| harness s (third) | harness share (third) | harness CPU s (first, third) | load |\n|---|" + "---:|" * 9
)


def first_vs_third(slugs: list[str], *, warm: bool) -> None:
    """The first and the third Submit of every problem, in this process, started as a worker is."""
    from grader.handed_in import grade_text, warm_up

    print(f"machine: {machine_state()}", flush=True)
    started = time.perf_counter()
    enable_compilation_cache()
    clock = HarnessCompileClock()
    warmed = warm_up("cpu", slugs if warm else [], budget_s=math.inf)  # every problem, as if all were assigned
    print(f"worker start: {time.perf_counter() - started:.1f} s, {len(warmed)} problems warmed", flush=True)
    print(FIRST_VS_THIRD_HEADER, flush=True)
    ratios, shares = {}, {}
    for slug in slugs:
        problem = load_problem(slug)
        pool_kind_ready(problem)
        source = read_submission(problem.reference_solution)
        timings: list[Timing] = []
        cpus: list[float] = []
        for _ in range(3):
            edit = next_edit(source)
            pool_kind_ready(problem)  # as in a worker between submissions
            before = clock.seconds
            begun, cpu = time.perf_counter(), time.process_time()
            report = grade_text(slug, edit.text, filename="solution.py", include_hidden=True)
            timings.append(Timing.of(report, time.perf_counter() - begun, clock.seconds - before))
            # This process's CPU seconds (every thread of the harness): what a busy machine
            # stretches least, beside the wall time a student waits.
            cpus.append(time.process_time() - cpu)
        assert all(timing.verdict == "accepted" for timing in timings), (slug, timings)
        first, third = timings[0], timings[2]
        ratios[slug] = first.seconds / third.seconds
        shares[slug] = max(first.harness / first.seconds, third.harness / third.seconds)
        print(
            f"| {slug} | {first.seconds:.2f} s | {third.seconds:.2f} s | {ratios[slug]:.2f}× "
            f"| {first.harness:.2f} | {first.harness / first.seconds:.0%} "
            f"| {third.harness:.2f} | {third.harness / third.seconds:.0%} "
            f"| {cpus[0]:.2f}, {cpus[2]:.2f} | {os.getloadavg()[0]:.1f} |",
            flush=True,
        )
    worst_ratio = max(ratios, key=ratios.__getitem__)
    worst_share = max(shares, key=shares.__getitem__)
    print(
        f"\nfirst/third at most {ratios[worst_ratio]:.2f}× ({worst_ratio}); over 1.3×: "
        f"{sum(r > 1.3 for r in ratios.values())} of {len(ratios)}. Harness share at most "
        f"{shares[worst_share]:.0%} ({worst_share}); over 35%: "
        f"{sum(share > 0.35 for share in shares.values())} of {len(shares)}."
    )
    print(f"machine: {machine_state()}", flush=True)


def pool_kind_ready(problem: Problem) -> None:
    """Wait for the site's pool of this problem's kind to have its sandbox ready."""
    from grader.pools import PoolKind, sandbox_pool

    sandbox_pool(PoolKind(device=problem.sandbox_device)).wait_ready()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_problem_arguments(parser, runs=3)
    parser.add_argument(
        "--first-vs-third",
        action="store_true",
        help="instead: the first and third Submit of each problem on a worker just started (see above)",
    )
    parser.add_argument(
        "--no-warm-up", action="store_true", help="with --first-vs-third: start the worker without warming problems"
    )
    parser.add_argument("--write-table", action="store_true", help="put the table in docs/speed.md")
    parser.add_argument(
        "--same-source",
        action="store_true",
        help="grade the very same source every time (its examples repeat: what the harness remembers answers)",
    )
    args = parser.parse_args()
    if args.first_vs_third:
        first_vs_third(args.problem, warm=not args.no_warm_up)
        return

    enable_compilation_cache()
    clock = HarnessCompileClock()
    rights: dict[str, list[Timing]] = {}
    wrongs: dict[str, list[Timing]] = {}
    runs: dict[str, list[Timing]] = {}
    lines = [HEADER]
    print(HEADER, flush=True)
    with SandboxPool(get_backend(), size=1) as pool:
        for slug in args.problem:
            problem = load_problem(slug)
            # One grading first, untimed: this process's caches (the reference's executables,
            # hypothesis's module scan) are a worker's after its first Submit of a problem.
            same = args.same_source
            time_gradings(problem, problem.reference_solution, pool, clock, 1, same_source=same)
            rights[slug] = time_gradings(problem, problem.reference_solution, pool, clock, args.runs, same_source=same)
            assert all(timing.verdict == "accepted" for timing in rights[slug]), (slug, rights[slug])
            wrong_paths = problem.wrong_solutions()
            wrongs[slug] = (
                time_gradings(problem, wrong_paths[0], pool, clock, args.runs, same_source=same) if wrong_paths else []
            )
            runs[slug] = time_gradings(
                problem, problem.reference_solution, pool, clock, args.runs, hidden=False, same_source=same
            )
            lines.append(row(slug, rights[slug], wrongs[slug], runs[slug]))
            print(lines[-1], flush=True)
    lines += ["", summary(rights, wrongs, runs)]
    print(lines[-1])
    if args.write_table:
        write_table("\n".join(lines))


if __name__ == "__main__":
    main()
