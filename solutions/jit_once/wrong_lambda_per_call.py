"""Vmaps f once but jits a new lambda around it for every call: each lambda is a new function to
jit's caches, so every call traces again."""
# expect: wrong_answer
# pitfall: A new function per call.

import jax


def jit_once(f, calls):
    per_example = jax.vmap(f, in_axes=(None, 0))
    return [jax.jit(lambda p, v: per_example(p, v))(params, xs) for params, xs in calls]
