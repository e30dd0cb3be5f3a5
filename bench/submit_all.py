"""A warm Submit of every problem, right and wrong, and where its time goes.

Run: .venv/bin/python -m bench.submit_all [--runs 3] [--problem SLUG ...] [--write-table] [--same-source]

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
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import re
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

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


def next_edit(source: SubmissionSource) -> SubmissionSource:
    """The source as a student hands it in again: a comment added, so that, as on the site,
    each Submit meets examples of its own (they are seeded from the source) and nothing the
    harness remembers from another grading's examples answers for this one."""
    return dataclasses.replace(source, text=f"{source.text}\n# edit {next(_edits)}\n")


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_problem_arguments(parser, runs=3)
    parser.add_argument("--write-table", action="store_true", help="put the table in docs/speed.md")
    parser.add_argument(
        "--same-source",
        action="store_true",
        help="grade the very same source every time (its examples repeat: what the harness remembers answers)",
    )
    args = parser.parse_args()

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
