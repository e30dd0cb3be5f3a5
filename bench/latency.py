"""Submit-to-verdict latency of the bundled reference solutions, warm and cold.

Run: .venv/bin/python -m bench.latency [--runs 7] [--problem SLUG ...] [--insight-cost]

The harness runs in this process with JAX already imported (as in a worker). For each
problem it grades the reference solution:

- warm: with a pool whose sandbox has already imported JAX;
- cold: starting a new sandbox for the submission;

and prints the median and p90 of each, the time spent in JAX compilation during a warm
verdict (XLA compiles plus tracing and lowering, in the sandbox and in the harness), and what
is left over: the cost of the grading machinery itself.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import jax

from bench.stats import BUNDLED_PROBLEMS, p90
from grader import harness
from grader.handed_in import COMPILATION_EVENTS
from grader.harness import enable_compilation_cache, grade_submission
from grader.problem import load_problem
from grader.source import read_submission
from sandbox.host.backends import get_backend
from sandbox.host.prestarted import SandboxPool
from sandbox.host.session import SandboxSession

HARNESS_COMPILE_EVENTS = COMPILATION_EVENTS  # JAX's timers of tracing, lowering and XLA


class HarnessCompileClock:
    """Seconds this process spends in JAX compilation (the reference's side of a grading)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        jax.monitoring.register_event_duration_secs_listener(self._on_event)

    def _on_event(self, event: str, duration_secs: float, **_: str | int) -> None:
        if event in HARNESS_COMPILE_EVENTS:
            self.seconds += duration_secs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--problem", nargs="*", default=BUNDLED_PROBLEMS)
    parser.add_argument(
        "--insight-cost",
        action="store_true",
        help="instead: warm verdicts with and without the JAX insight, in turn; their medians and the difference",
    )
    args = parser.parse_args()
    if args.insight_cost:
        insight_cost(args.problem, args.runs)
        return

    enable_compilation_cache()
    clock = HarnessCompileClock()
    backend = get_backend()
    with SandboxPool(backend, size=1) as pool:
        for slug in args.problem:
            problem = load_problem(slug)
            source = read_submission(problem.reference_solution)
            warm, cold, compile_share, leftover, xla_only, staging = [], [], [], [], [], []
            for _ in range(args.runs):
                pool.wait_ready()
                harness_before = clock.seconds
                started = time.perf_counter()
                with pool.sandbox() as session:
                    report = grade_submission(problem, source, session=session)
                elapsed = time.perf_counter() - started
                assert report.accepted, report.summary()
                compiles = (
                    report.sandbox["compile_seconds"]
                    + report.sandbox["staging_seconds"]
                    + clock.seconds
                    - harness_before
                )
                warm.append(elapsed)
                compile_share.append(compiles / elapsed)
                leftover.append(elapsed - compiles)
                xla_only.append(report.sandbox["compile_seconds"])
                staging.append(report.sandbox["staging_seconds"])
            for _ in range(args.runs):
                started = time.perf_counter()
                report = grade_submission(problem, source, session=SandboxSession(backend))
                cold.append(time.perf_counter() - started)
                assert report.accepted, report.summary()
            print(
                f"{slug:<18} warm median {statistics.median(warm):.3f}s p90 {p90(warm):.3f}s | "
                f"cold median {statistics.median(cold):.3f}s p90 {p90(cold):.3f}s | "
                f"JAX compilation {statistics.median(compile_share):.0%} of a warm verdict, "
                f"the rest {statistics.median(leftover):.3f}s (median)"
            )
            print(
                f"{'':<18} in the sandbox: XLA backend compiles {statistics.median(xla_only):.3f}s, "
                f"tracing and lowering {statistics.median(staging):.3f}s (medians)"
            )


def insight_cost(slugs: list[str], runs: int) -> None:
    """What the insight adds to a warm verdict: the same grading with it and without, taken in
    turn (so that the machine's drift touches both alike); medians, and the median of the
    paired differences. An accepted Submit: the insight includes the reference's side."""
    enable_compilation_cache()
    # The insight's own step, timed where it runs: a paired difference of whole gradings is
    # only as steady as the gradings (static_power's vary by ±0.15 s from run to run).
    steps: list[float] = []
    collect = harness.collect_insight

    def timed_collect(*args: Any, **kwargs: Any) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            return collect(*args, **kwargs)
        finally:
            steps.append(time.perf_counter() - started)

    harness.collect_insight = timed_collect
    with SandboxPool(get_backend(), size=1) as pool:
        for slug in slugs:
            problem = load_problem(slug)
            source = read_submission(problem.reference_solution)
            times: dict[bool, list[float]] = {False: [], True: []}
            steps.clear()
            for run in range(runs + 1):
                for insight in (False, True):
                    pool.wait_ready()
                    started = time.perf_counter()
                    with pool.sandbox() as session:
                        report = grade_submission(problem, source, session=session, insight=insight)
                    if run:  # the first pair fills this process's caches
                        times[insight].append(time.perf_counter() - started)
                    assert report.accepted and bool(report.insight) == insight, report.summary()
            added = statistics.median(b - a for a, b in zip(times[False], times[True], strict=True))
            print(
                f"{slug:<18} warm without insight {statistics.median(times[False]):.3f}s, "
                f"with {statistics.median(times[True]):.3f}s: {added:+.3f}s (median of {runs} pairs); "
                f"the insight step itself {statistics.median(steps[1:]):.3f}s (median), {max(steps[1:]):.3f}s at most"
            )


if __name__ == "__main__":
    main()
