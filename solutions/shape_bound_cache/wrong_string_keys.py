"""Keys the cache by str(shape) instead of the shape tuple."""
# expect: wrong_answer
# pitfall: Keys must be shape tuples

import jax
import jax.numpy as jnp


def shape_bound_cache(xs):
    cache = {}
    for x in xs:
        if str(x.shape) not in cache:
            cache[str(x.shape)] = jax.jit(jnp.sum).lower(x).compile()
    return cache
