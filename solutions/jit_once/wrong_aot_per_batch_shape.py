"""Compiles ahead of time once per batch shape only: weights of another shape or dtype, or a
batch of another dtype, meet an executable that refuses them."""
# expect: runtime_error
# pitfall: Caching by the batch's shape alone.

import jax


def jit_once(f, calls):
    batched = jax.jit(jax.vmap(f, in_axes=(None, 0)))
    compiled = {}
    results = []
    for params, xs in calls:
        if xs.shape not in compiled:
            compiled[xs.shape] = batched.lower(params, xs).compile()
        results.append(compiled[xs.shape](params, xs))
    return results
