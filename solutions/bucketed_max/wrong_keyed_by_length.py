"""Pads to the bucket but keys the dict by the exact length: every new length of a known bucket
traces and lowers jnp.max again (JAX's own cache spares the XLA compile here, since jnp.max is
the same function each time), where a known bucket must only run its executable."""
# expect: wrong_answer
# pitfall: The wrong key.

import jax
import jax.numpy as jnp
import numpy as np

_EXECUTABLES = {}


def bucketed_max(x):
    n = x.shape[0]
    size = 1 << (n - 1).bit_length()
    key = (n, jnp.dtype(x.dtype))
    if key not in _EXECUTABLES:
        _EXECUTABLES[key] = jax.jit(jnp.max).lower(jax.ShapeDtypeStruct((size,), x.dtype)).compile()
    padded = np.full(size, -np.inf, dtype=x.dtype)
    padded[:n] = np.asarray(x)
    return _EXECUTABLES[key](padded)
