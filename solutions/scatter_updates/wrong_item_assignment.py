"""The NumPy way, totals[bins] += weights: JAX arrays are immutable, so the assignment raises a TypeError."""
# expect: runtime_error
# pitfall: Assigning into the array.

import jax


@jax.jit
def bin_totals(totals, bins, weights):
    totals[bins] += weights
    return totals
