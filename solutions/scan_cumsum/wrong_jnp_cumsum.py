"""Calls jnp.cumsum: the right numbers, but no lax.scan, which is what the problem is about."""
# expect: wrong_answer
# pitfall: Not using `scan`.

import jax.numpy as jnp


def scan_cumsum(x):
    return jnp.cumsum(x)
