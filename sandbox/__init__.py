"""Running untrusted submissions: the host's side, what runs inside, and the wire between.

This package imports neither Django nor the grader. ``sandbox.host`` starts and keeps
sandboxes; ``sandbox.inside`` is what runs in one. Neither imports the other (pyproject.toml's
contracts): they share the wire's vocabulary here (``sandbox.protocol``,
``sandbox.wire_values``, ``sandbox.cell_outputs``, ``sandbox.stages``). The package is
mounted read-only into every sandbox.
"""

# XLA:CPU's newer fusion emitters take about half as long again to compile the small programs
# that grading runs by the dozen (jnp.sum: 38 ms against 24 ms here) and bring nothing at these
# sizes. LLVM's optimisation level 0 compiles them in three quarters of the time
# (``bench.xla_flags``); its results differ from -O2's in the last bit of a few transcendental
# functions at most, and grading never compares the two. Sandboxes and the harness both
# compile with these flags, so they agree.
GRADING_XLA_FLAGS = ("--xla_cpu_use_fusion_emitters=false", "--xla_backend_optimization_level=0")


def grading_xla_flags(existing: str = "") -> str:
    """``existing`` (an ``XLA_FLAGS`` value) with grading's flags added; a flag set there wins."""
    flags = existing.split()
    named = {flag.split("=", 1)[0] for flag in flags}
    return " ".join(flags + [flag for flag in GRADING_XLA_FLAGS if flag.split("=", 1)[0] not in named])


# What JAX imports on first use rather than on `import jax`: the MLIR dialect at a first
# lowering, multihost_utils at a first array's transfer. Processes that fork workers (the
# sandbox's fork server, a batch's) import them once, before forking.
JAX_FIRST_USE_MODULES = ("jaxlib.mlir.dialects.mhlo", "jax.experimental.multihost_utils")
