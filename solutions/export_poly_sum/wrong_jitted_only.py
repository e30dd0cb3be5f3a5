"""Returns the jitted function itself: it sums any length, but it is not an Exported."""
# expect: wrong_answer
# pitfall: Stopping before the export

import jax
import jax.numpy as jnp


def export_poly_sum():
    return jax.jit(jnp.sum)
