"""jax.ops.segment_sum of the weights as given: each bin is summed in bfloat16 or float16, and only the
rounded sum reaches float32."""
# expect: wrong_answer
# pitfall: Summing in the weights' dtype.

import jax


@jax.jit
def bin_totals(totals, bins, weights):
    return totals + jax.ops.segment_sum(weights, bins, num_segments=totals.shape[0])
