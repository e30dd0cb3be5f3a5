"""Sends every negative bin to index len(totals), one past the end, and lets the scatter drop it
there; weights are added to the float32 totals, which converts them to float32 first."""

import jax
import jax.numpy as jnp


@jax.jit
def bin_totals(totals, bins, weights):
    past_the_end = totals.shape[0]
    bins = jnp.where(bins < 0, past_the_end, bins)
    return totals.at[bins].add(weights, mode="drop")
