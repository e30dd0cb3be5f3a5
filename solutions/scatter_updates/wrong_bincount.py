"""jnp.bincount with length=num_bins: it drops bins past the end but clips negative bins to 0, so they land in bin 0."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


@jax.jit
def bin_totals(totals, bins, weights):
    return totals + jnp.bincount(bins, weights.astype(jnp.float32), length=totals.shape[0])
