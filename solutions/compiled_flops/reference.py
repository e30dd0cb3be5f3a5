"""Reference solution: the "flops" entry of the compiled executable's cost analysis (0.0 when absent)."""

import jax


def compiled_flops(f, *args):
    compiled = jax.jit(f).lower(*args).compile()
    return float(compiled.cost_analysis().get("flops", 0.0))
