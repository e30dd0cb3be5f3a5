"""Builds jax.jit(jax.vmap(f, ...)) inside the loop: jax.vmap returns a new function every time,
so every call hands jit a function with an empty cache and traces again, even for weights and
batches of shapes already seen."""
# expect: wrong_answer
# pitfall: Rebuilding the transformation.

import jax


def jit_once(f, calls):
    return [jax.jit(jax.vmap(f, in_axes=(None, 0)))(params, xs) for params, xs in calls]
