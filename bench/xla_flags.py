"""What XLA:CPU options save on the small programs grading compiles, and that results agree.

Run: .venv/bin/python -m bench.xla_flags [--rounds 5]

Each candidate set of ``XLA_FLAGS`` is tried in fresh Python processes, in turn with the
others (so the machine's drift touches all alike): each process compiles the same programs
(the kinds hidden tests make: reductions, elementwise chains, cumsum, matmul, where, over
the dtypes and lengths they draw) and reports the median compile time and a digest of every
result. Printed: per candidate, the median over rounds of the per-program median compile
time, its ratio to the first candidate, and whether every result was bit-for-bit the first's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from sandbox import GRADING_XLA_FLAGS

CANDIDATES = {
    "grading today": (),
    "codegen in one piece": ("--xla_cpu_parallel_codegen_split_count=1",),
    "no XNNPACK": ("--xla_cpu_use_xnnpack=false",),
    "no thunk runtime": ("--xla_cpu_use_thunk_runtime=false",),
    "no expensive LLVM passes": ("--xla_llvm_disable_expensive_passes=true",),
}

PROGRAM = r"""
import hashlib, json, statistics, time
import jax, jax.numpy as jnp, numpy as np

programs = {
    "sum": lambda x: jnp.sum(x),
    "positive_sum": lambda x: jnp.sum(jnp.where(x > 0, x, jnp.zeros((), x.dtype))),
    "softplus": lambda x: jnp.logaddexp(x, 0.0),
    "cumsum": lambda x: jnp.cumsum(x),
    "chain": lambda x: jnp.tanh(jnp.sin(x) * 2.0 + jnp.exp(-jnp.abs(x))).sum(),
    "dot": lambda x: x @ x,
}
times, digest = [], hashlib.sha256()
rng = np.random.default_rng(0)
for length in (0, 1, 7, 31, 257):
    for dtype in ("float32", "bfloat16", "float16", "int32", "int8"):
        values = rng.uniform(-8, 8, size=length).astype(np.float32)
        x = jnp.asarray(values).astype(dtype)
        for name, function in programs.items():
            if name == "softplus" and not jnp.issubdtype(x.dtype, jnp.floating):
                continue
            lowered = jax.jit(function).lower(x)
            started = time.perf_counter()
            compiled = lowered.compile()
            times.append(time.perf_counter() - started)
            result = np.asarray(compiled(x).astype(jnp.float32))
            digest.update(name.encode() + dtype.encode() + result.tobytes())
print(json.dumps({"median_ms": 1000 * statistics.median(times), "digest": digest.hexdigest()}))
"""


def measure(flags: tuple[str, ...]) -> dict[str, object]:
    env = {**os.environ, "XLA_FLAGS": " ".join((*GRADING_XLA_FLAGS, *flags)), "JAX_PLATFORMS": "cpu"}
    output = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, check=False)
    if output.returncode:
        raise SystemExit(f"the compile run with XLA_FLAGS={env['XLA_FLAGS']!r} failed:\n{output.stderr[-3000:]}")
    return json.loads(output.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    medians: dict[str, list[float]] = {name: [] for name in CANDIDATES}
    digests: dict[str, set[str]] = {name: set() for name in CANDIDATES}
    for _ in range(args.rounds):
        for name, flags in CANDIDATES.items():
            result = measure(flags)
            medians[name].append(float(result["median_ms"]))  # type: ignore[arg-type]
            digests[name].add(str(result["digest"]))
    first = next(iter(CANDIDATES))
    baseline = statistics.median(medians[first])
    for name in CANDIDATES:
        median = statistics.median(medians[name])
        agree = digests[name] == digests[first]
        verdict = "agree" if agree else "DIFFER"
        print(f"{name:<26} compile median {median:6.1f} ms  {median / baseline:4.2f}x  results {verdict}")


if __name__ == "__main__":
    main()
