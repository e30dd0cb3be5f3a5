"""Replaces the hand-written norm by jnp.linalg.norm: the right values, but its gradient at an
all-zero row is NaN too (it is a square root of a sum of squares, unguarded)."""
# expect: wrong_answer
# pitfall: Swapping in `jnp.linalg.norm`.

import jax.numpy as jnp


def safe_norm(x):
    return jnp.linalg.norm(x, axis=-1)
