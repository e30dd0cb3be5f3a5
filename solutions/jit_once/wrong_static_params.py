"""Marks the weights static: a dict is not hashable, so jit refuses it (and every new set of
weights would be traced again anyway)."""
# expect: runtime_error
# pitfall: Making the weights static.

import jax


def jit_once(f, calls):
    batched = jax.jit(jax.vmap(f, in_axes=(None, 0)), static_argnums=0)
    return [batched(params, xs) for params, xs in calls]
