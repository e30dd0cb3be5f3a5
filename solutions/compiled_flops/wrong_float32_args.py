"""Compiles for float32 copies of the arguments: the count is for another program."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def compiled_flops(f, *args):
    args = [jnp.asarray(a, dtype=jnp.float32) for a in args]
    return float(jax.jit(f).lower(*args).compile().cost_analysis().get("flops", 0.0))
