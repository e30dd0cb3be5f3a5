"""Reference solution: one .at[bins].add into the float32 totals, with mode="drop" and negative bins not wrapped.

JAX arrays cannot be changed in place, so the new totals come from totals.at[bins].add(...), which
returns a fresh array and compiles to a single scatter-add over all the updates, whatever their
number. A scatter-add combines updates that land on the same index by adding them, so a bin that
appears many times receives every one of its weights, unlike .set, which keeps a single write per
index. Two rules decide where an index outside the totals goes: mode="drop" skips those past the
end, and wrap_negative_indices=False makes a negative bin out of range too, instead of counting it
from the end as Python would. The weights are cast to float32 before the scatter, so the sums are
formed in the float32 totals and bfloat16 or float16 weights lose nothing to rounding as they add up.
"""

import jax
import jax.numpy as jnp


@jax.jit
def bin_totals(totals, bins, weights):
    return totals.at[bins].add(weights.astype(jnp.float32), mode="drop", wrap_negative_indices=False)
