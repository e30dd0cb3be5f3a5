"""Guards only the square root's input, with a stand-in of 0, and drops the outer where: the
values are right and so is reverse mode, but forward mode still evaluates sqrt's infinite slope
at 0, times a zero tangent: jacfwd gives NaN for all-zero rows."""
# expect: wrong_answer
# pitfall: Guarding only half.

import jax.numpy as jnp


def safe_norm(x):
    s = jnp.sum(x * x, axis=-1)
    return jnp.sqrt(jnp.where(s > 0, s, 0.0))
