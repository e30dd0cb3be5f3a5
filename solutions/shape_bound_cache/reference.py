"""Reference solution: one ahead-of-time jnp.sum per distinct shape, compiled the first time that shape is met.

An executable compiled ahead of time is bound to the shape and dtype it was lowered for, so the arrays of one
shape (all of them float32 here) can share one executable and need no other. Keying a dict by the shape as a
tuple of ints makes each new shape compile once, when it is first met, and every repeat find its executable
without lowering or compiling again. Each entry is the Compiled object itself, made with
jax.jit(jnp.sum).lower(x).compile(), so calling it runs at once and refuses any other shape with TypeError
instead of quietly compiling. An empty list meets no shape and compiles nothing.
"""

import jax
import jax.numpy as jnp


def shape_bound_cache(xs):
    cache = {}
    for x in xs:
        shape = tuple(x.shape)
        if shape not in cache:
            cache[shape] = jax.jit(jnp.sum).lower(x).compile()
    return cache
