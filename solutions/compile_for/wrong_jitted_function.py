"""Returns the jitted function: it recompiles for any shape instead of rejecting it."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def compile_for(example):
    return jax.jit(jnp.sum)
