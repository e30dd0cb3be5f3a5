"""Wraps the vmapped f in a new functools.partial for every call: each partial is a new function
to jit's caches, so every call traces again."""
# expect: wrong_answer

import functools

import jax


def jit_once(f, calls):
    per_example = jax.vmap(f, in_axes=(None, 0))
    return [jax.jit(functools.partial(per_example))(params, xs) for params, xs in calls]
