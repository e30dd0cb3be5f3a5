"""Wall time of `python -m grader grade` on the bundled reference solutions.

Run: .venv/bin/python -m bench.grade_latency [--runs 5] [--problem SLUG ...] [--cold] [--floor]

Prints, per problem, the median and p90 of the whole command's wall time, the median of
the grading itself (the report's duration_s), and the median start-up of Python + `import
jax`, which every grading pays once in the harness and once in the sandbox (in parallel).
The first run of each problem may include filling the harness's XLA cache; pass
--cold to clear that cache before every run.

``--floor`` also times, in turn with each grading, the least any grader could do for it: one
Python process that imports JAX and compiles as many programs as the grading's sandbox did
(``jnp.sum`` of distinct lengths, at the grading's XLA flags), and prints the ratio of the
medians. For ``aot_compiled_sum`` those are the same programs the grading compiles. Beside it,
the same process importing pytest and hypothesis as well: the least that a harness of pytest
and hypothesis properties adds before its first input exists, whatever its sandbox costs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.stats import BUNDLED_PROBLEMS, p90
from sandbox import grading_xla_flags

REPO = Path(__file__).resolve().parent.parent


def timed(command: list[str], xla_cache: str | None = None) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run a command; with ``xla_cache``, the harness keeps its XLA executables there."""
    env = {**os.environ, "JAXJUDGE_XLA_CACHE_DIR": xla_cache} if xla_cache is not None else None
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO, env=env, check=False)
    return time.perf_counter() - started, result


def compile_milliseconds() -> float:
    code = (
        "import time, statistics, jax, jax.numpy as jnp\n"
        "times = []\n"
        "for n in range(1, 21):\n"
        "    lowered = jax.jit(jnp.sum).lower(jnp.ones(n))\n"
        "    started = time.perf_counter(); lowered.compile(); times.append(time.perf_counter() - started)\n"
        "print(1000 * statistics.median(times))\n"
    )
    return float(timed([sys.executable, "-c", code])[1].stdout)


def floor_command(compiles: int, *, test_framework: bool = False) -> list[str]:
    """A process that imports JAX and compiles ``compiles`` programs, as the grading's sandbox does.

    ``test_framework``: it imports pytest and hypothesis first, as any harness of pytest and
    hypothesis properties must before its first test can draw an input: the least such a grader
    adds to the floor, even with a sandbox that cost nothing."""
    code = (
        ("import pytest, hypothesis, hypothesis.extra.numpy\n" if test_framework else "")
        + "import jax, jax.numpy as jnp, numpy as np\n"
        f"for n in range({compiles}):\n"  # numpy inputs: making them compiles nothing
        "    jax.jit(jnp.sum).lower(np.zeros(n + 1, np.float32)).compile()\n"
    )
    return [sys.executable, "-c", code]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--problem", nargs="*", default=BUNDLED_PROBLEMS)
    parser.add_argument("--cold", action="store_true", help="clear the harness's XLA cache before every run")
    parser.add_argument("--floor", action="store_true", help="beside each grading, import JAX and compile alone")
    args = parser.parse_args()
    # The grading's XLA flags, for the floor's process too (``grader`` sets them on import).
    os.environ["XLA_FLAGS"] = grading_xla_flags(os.environ.get("XLA_FLAGS", ""))

    startup = [timed([sys.executable, "-c", "import jax, jax.numpy"])[0] for _ in range(args.runs)]
    print(f"python + import jax: median {statistics.median(startup):.2f}s")
    # A fixed workload, so that figures taken on a busier or slower machine can be compared.
    print(f"calibration: one XLA compile of jnp.sum takes {compile_milliseconds():.1f} ms (median of 20)")
    for slug in args.problem:
        walls, grading, floors, framework_floors = [], [], [], []
        cache = tempfile.mkdtemp(prefix="jaxjudge-bench-xla-")
        for _ in range(args.runs):
            if args.cold:
                shutil.rmtree(cache, ignore_errors=True)
            with tempfile.NamedTemporaryFile(suffix=".json") as out:
                command = [sys.executable, "-m", "grader", "grade", "--problem", slug]
                command += [f"solutions/{slug}/reference.py", "--json", out.name]
                wall, result = timed(command, cache)
                if result.returncode != 0:
                    raise SystemExit(f"{slug}: grading failed:\n{result.stdout}{result.stderr}")
                report = json.loads(Path(out.name).read_text())
                grading.append(report["duration_s"])
            walls.append(wall)
            if args.floor:
                compiles = report["sandbox"]["compiles"]
                floors.append(timed(floor_command(compiles))[0])
                framework_floors.append(timed(floor_command(compiles, test_framework=True))[0])
        shutil.rmtree(cache, ignore_errors=True)
        median = statistics.median(walls)
        print(
            f"{slug:<18} wall median {median:.2f}s p90 {p90(walls):.2f}s; grading median "
            f"{statistics.median(grading):.2f}s; jax start-up is {statistics.median(startup) / median:.0%} of the wall"
        )
        if floors:
            floor = statistics.median(floors)
            print(
                f"{'':<18} floor (import JAX, {report['sandbox']['compiles']} compiles) median {floor:.2f}s: "
                f"the grading takes {median / floor:.2f}x the floor"
            )
            framework = statistics.median(framework_floors)
            print(
                f"{'':<18} the floor with pytest and hypothesis imported too: median {framework:.2f}s, "
                f"{framework / floor:.2f}x the floor (the least any pytest + hypothesis harness takes)"
            )


if __name__ == "__main__":
    main()
