"""jax.ops.segment_sum of the weights cast to float32, which skips segment ids outside
[0, num_segments), negative ones included, then added to the totals."""

import jax
import jax.numpy as jnp


@jax.jit
def bin_totals(totals, bins, weights):
    sums = jax.ops.segment_sum(weights.astype(jnp.float32), bins, num_segments=totals.shape[0])
    return totals + sums
