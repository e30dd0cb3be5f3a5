"""Lowers for real arrays of zeros: right for small shapes, but it allocates every argument first."""
# expect: runtime_error
# pitfall: Making an array to get a shape

import jax
import jax.numpy as jnp


def build_report(f, *signature):
    lowered = jax.jit(f).lower(*(jnp.zeros(shape, dtype=dtype) for shape, dtype in signature))
    costs = lowered.compile().cost_analysis()
    return {"lowered": lowered, "stablehlo": lowered.as_text(), "flops": float(costs.get("flops", 0.0))}
