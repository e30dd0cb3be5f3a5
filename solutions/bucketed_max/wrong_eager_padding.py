"""Pads with jnp.pad outside the executable: the padding is an eager operation, compiled once
for every new length, so the budget is exceeded even though the max runs per bucket."""
# expect: wrong_answer
# pitfall: Padding with `jnp` outside the executable.

import jax
import jax.numpy as jnp

_EXECUTABLES = {}


def bucketed_max(x):
    n = x.shape[0]
    size = 1 << (n - 1).bit_length()
    key = (size, jnp.dtype(x.dtype))
    if key not in _EXECUTABLES:
        _EXECUTABLES[key] = jax.jit(jnp.max).lower(jax.ShapeDtypeStruct((size,), x.dtype)).compile()
    padded = jnp.pad(x, (0, size - n), constant_values=-jnp.inf)
    return _EXECUTABLES[key](padded)
