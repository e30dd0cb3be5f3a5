"""Clips the bins into range but gives every event whose bin was out of range a weight of zero,
so a clipped index adds nothing to the bin it lands in."""

import jax
import jax.numpy as jnp


@jax.jit
def bin_totals(totals, bins, weights):
    num_bins = totals.shape[0]
    inside = (bins >= 0) & (bins < num_bins)
    kept = jnp.where(inside, weights.astype(jnp.float32), 0.0)
    return totals.at[jnp.clip(bins, 0, num_bins - 1)].add(kept)
