"""Reads each bin's total, adds the weight and writes it back with .set: a bin that repeats keeps only one of
its writes."""
# expect: wrong_answer
# pitfall: `.set` where bins repeat.

import jax
import jax.numpy as jnp


@jax.jit
def bin_totals(totals, bins, weights):
    current = totals.at[bins].get(mode="fill", fill_value=0.0, wrap_negative_indices=False)
    return totals.at[bins].set(current + weights.astype(jnp.float32), mode="drop", wrap_negative_indices=False)
