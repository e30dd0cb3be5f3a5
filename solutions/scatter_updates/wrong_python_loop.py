"""One .at[...].add per event in a Python loop: right totals, but the traced program holds one scatter-add per event."""
# expect: wrong_answer
# pitfall: One update per event.

import jax
import jax.numpy as jnp


@jax.jit
def bin_totals(totals, bins, weights):
    for i in range(bins.shape[0]):
        one_bin, one_weight = bins[i : i + 1], weights[i : i + 1].astype(jnp.float32)
        totals = totals.at[one_bin].add(one_weight, mode="drop", wrap_negative_indices=False)
    return totals
