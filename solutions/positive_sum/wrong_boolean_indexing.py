"""Selects the positives with a boolean index: right directly, but its length depends on values, so jit fails."""
# expect: runtime_error
# pitfall: Boolean indexing.

import jax.numpy as jnp


def positive_sum(x):
    return jnp.sum(x[x > 0])
