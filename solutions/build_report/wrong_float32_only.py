"""Ignores the dtypes asked for and builds for float32 arguments."""
# expect: wrong_answer
# pitfall: Dropping or casting a dtype

import jax
import jax.numpy as jnp


def build_report(f, *signature):
    lowered = jax.jit(f).lower(*(jax.ShapeDtypeStruct(shape, jnp.float32) for shape, _ in signature))
    costs = lowered.compile().cost_analysis()
    return {"lowered": lowered, "stablehlo": lowered.as_text(), "flops": float(costs.get("flops", 0.0))}
