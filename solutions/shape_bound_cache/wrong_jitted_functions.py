"""Stores jax.jit(jnp.sum) under every shape: nothing is compiled ahead of time, nothing is shape-bound."""
# expect: wrong_answer
# pitfall: Storing `jax.jit(jnp.sum)`

import jax
import jax.numpy as jnp


def shape_bound_cache(xs):
    summed = jax.jit(jnp.sum)
    return {tuple(x.shape): summed for x in xs}
