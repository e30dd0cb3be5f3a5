"""Deduplicates by element count: (2, 3) and (6,) share the executable compiled for whichever came first."""
# expect: wrong_answer
# pitfall: Deduplicating by the wrong thing

import jax
import jax.numpy as jnp


def shape_bound_cache(xs):
    by_size, cache = {}, {}
    for x in xs:
        if x.size not in by_size:
            by_size[x.size] = jax.jit(jnp.sum).lower(x).compile()
        cache[tuple(x.shape)] = by_size[x.size]
    return cache
