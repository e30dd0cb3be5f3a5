"""Right cache, wrong function: compiles jnp.mean."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def shape_bound_cache(xs):
    cache = {}
    for x in xs:
        shape = tuple(x.shape)
        if shape not in cache:
            cache[shape] = jax.jit(jnp.mean).lower(x).compile()
    return cache
