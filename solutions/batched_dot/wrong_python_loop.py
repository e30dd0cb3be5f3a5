"""Stacks one jnp.dot per row in a Python loop: jnp.stack of no rows fails for n == 0."""
# expect: runtime_error
# pitfall: A Python loop over the rows.

import jax.numpy as jnp


def batched_dot(a, b):
    return jnp.stack([jnp.dot(a[i], b[i]) for i in range(a.shape[0])])
