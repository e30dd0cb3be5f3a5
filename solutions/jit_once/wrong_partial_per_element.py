"""Wraps f in a new functools.partial for every x: each partial is a new function to jit's caches,
so every element is traced again."""
# expect: wrong_answer

import functools

import jax


def jit_once(f, xs):
    return [jax.jit(functools.partial(f))(x) for x in xs]
