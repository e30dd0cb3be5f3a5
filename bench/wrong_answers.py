"""Right and wrong answers, timed alike: a wrong answer's verdict must not cost much more.

Run: .venv/bin/python -m bench.wrong_answers [--runs 5] [--problem SLUG ...] [--no-cold]

For every problem it grades the reference solution and every known-wrong solution
(``solutions/<slug>/wrong_*.py``), each ``--runs`` times warm (a pool's sandbox that has
already imported JAX, as a worker grades) and cold (a sandbox started for the submission), in
this process with JAX already imported. It prints each one's verdict, its warm and cold
medians and their ratio to the reference's medians, then the worst ratio of all. Students
mostly submit wrong answers, so these ratios are the platform's everyday speed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bench.stats import add_problem_arguments
from grader.harness import enable_compilation_cache, grade_submission
from grader.problem import Problem, load_problem
from grader.source import read_submission
from sandbox.host.backends import Backend, get_backend
from sandbox.host.prestarted import SandboxPool
from sandbox.host.session import SandboxSession


def time_grading(
    problem: Problem, path: Path, pool: SandboxPool, backend: Backend, runs: int, cold: bool
) -> tuple[str, list[float], list[float]]:
    """(verdict, warm seconds, cold seconds) of ``runs`` gradings of one solution."""
    source = read_submission(path)
    warm: list[float] = []
    cold_times: list[float] = []
    verdicts: set[str] = set()
    for _ in range(runs):
        pool.wait_ready()  # the warm sandbox is ready, as in a worker between submissions
        started = time.perf_counter()
        with pool.sandbox() as session:
            report = grade_submission(problem, source, session=session)
        warm.append(time.perf_counter() - started)
        verdicts.add(str(report.verdict))
        if cold:
            started = time.perf_counter()
            report = grade_submission(problem, source, session=SandboxSession(backend))
            cold_times.append(time.perf_counter() - started)
            verdicts.add(str(report.verdict))
    return "/".join(sorted(verdicts)), warm, cold_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_problem_arguments(parser, runs=5)
    parser.add_argument("--no-cold", action="store_true", help="time warm gradings only")
    args = parser.parse_args()

    enable_compilation_cache()
    backend = get_backend()
    worst = (0.0, "")
    print(f"{'problem':<18} {'solution':<30} {'verdict':<16} {'warm':>7} {'ratio':>6} {'cold':>7} {'ratio':>6}")
    with SandboxPool(backend, size=1) as pool:
        for slug in args.problem:
            problem = load_problem(slug)
            baseline: tuple[float, float] | None = None
            for path in [problem.reference_solution, *problem.wrong_solutions()]:
                verdict, warm, cold = time_grading(problem, path, pool, backend, args.runs, not args.no_cold)
                warm_median = statistics.median(warm)
                cold_median = statistics.median(cold) if cold else float("nan")
                if baseline is None:
                    baseline = (warm_median, cold_median)
                warm_ratio, cold_ratio = warm_median / baseline[0], cold_median / baseline[1]
                for ratio, kind in ((warm_ratio, "warm"), (cold_ratio, "cold")):
                    if ratio > worst[0]:
                        worst = (ratio, f"{slug}/{path.name} {kind}")
                print(
                    f"{slug:<18} {path.stem:<30} {verdict:<16} {warm_median:>6.3f}s {warm_ratio:>5.2f}x "
                    f"{cold_median:>6.3f}s {cold_ratio:>5.2f}x",
                    flush=True,
                )
    print(f"worst ratio to the reference: {worst[0]:.2f}x ({worst[1]})")


if __name__ == "__main__":
    main()
