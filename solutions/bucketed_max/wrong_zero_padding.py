"""Pads with zeros: when every value is negative, a padding zero wins the max."""
# expect: wrong_answer
# pitfall: Padding with zeros.

import jax
import jax.numpy as jnp
import numpy as np

_EXECUTABLES = {}


def bucketed_max(x):
    n = x.shape[0]
    size = 1 << (n - 1).bit_length()
    key = (size, jnp.dtype(x.dtype))
    if key not in _EXECUTABLES:
        _EXECUTABLES[key] = jax.jit(jnp.max).lower(jax.ShapeDtypeStruct((size,), x.dtype)).compile()
    padded = np.zeros(size, dtype=x.dtype)
    padded[:n] = np.asarray(x)
    return _EXECUTABLES[key](padded)
