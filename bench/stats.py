"""What the benchmarks share: the problems they time and how they summarise timings."""

import argparse

from grader.problem import problems_dir

BUNDLED_PROBLEMS = ["aot_compiled_sum", "compile_for", "jaxpr_primitives"]


def add_problem_arguments(parser: argparse.ArgumentParser, *, runs: int) -> None:
    """``--runs N`` (gradings of each solution) and ``--problem SLUG ...`` (every installed one by default)."""
    parser.add_argument("--runs", type=int, default=runs)
    every_problem = sorted(path.stem for path in problems_dir().glob("*.ipynb"))
    parser.add_argument("--problem", nargs="*", default=every_problem, help="slugs (default: every problem)")


def p90(values: list[float]) -> float:
    """The 90th percentile, by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
