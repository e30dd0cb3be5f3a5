"""Clips the bins into [0, num_bins - 1] with jnp.clip, so the weights of out-of-range events pile up in the
first and last bins."""
# expect: wrong_answer
# pitfall: Clipping bins into range.

import jax
import jax.numpy as jnp


@jax.jit
def bin_totals(totals, bins, weights):
    bins = jnp.clip(bins, 0, totals.shape[0] - 1)
    return totals.at[bins].add(weights.astype(jnp.float32))
