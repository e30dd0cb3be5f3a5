"""Takes a fast path with a Python if when no row is all zero: right when called directly (and
under grad, whose values are concrete), but jit and vmap cannot turn a traced bool into a
Python one."""
# expect: runtime_error
# pitfall: A Python `if` on values.

import jax.numpy as jnp


def safe_norm(x):
    s = jnp.sum(x * x, axis=-1)
    if jnp.all(s > 0):
        return jnp.sqrt(s)
    nonzero = s > 0
    return jnp.where(nonzero, jnp.sqrt(jnp.where(nonzero, s, 1.0)), 0.0)
