"""Leaves out in_axes: jax.vmap then maps the weights over their first axis too, which fails for
0-d weights or weights whose first axis is not the batch's length (or computes something else)."""
# pitfall: Mapping the weights too, or not at all.

import jax


def jit_once(f, calls):
    batched = jax.jit(jax.vmap(f))
    return [batched(params, xs) for params, xs in calls]
