"""Reference solution: one jnp.sum executable per distinct shape, compiled the first time the shape is seen."""

import jax
import jax.numpy as jnp


def shape_bound_cache(xs):
    cache = {}
    for x in xs:
        shape = tuple(x.shape)
        if shape not in cache:
            cache[shape] = jax.jit(jnp.sum).lower(x).compile()
    return cache
