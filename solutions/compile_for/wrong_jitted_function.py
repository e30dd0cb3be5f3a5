"""Returns the jitted function: it recompiles for any shape instead of rejecting it."""
# expect: wrong_answer
# pitfall: Returning `jax.jit(f)` itself.

import jax
import jax.numpy as jnp


def compile_for(example):
    return jax.jit(jnp.sum)
