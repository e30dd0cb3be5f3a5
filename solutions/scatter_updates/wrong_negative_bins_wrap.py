"""A plain .at[bins].add: bins past the end are dropped, but a negative bin counts from the end like a Python index."""
# expect: wrong_answer
# pitfall: Negative bins wrap around.

import jax
import jax.numpy as jnp


@jax.jit
def bin_totals(totals, bins, weights):
    return totals.at[bins].add(weights.astype(jnp.float32), mode="drop")
