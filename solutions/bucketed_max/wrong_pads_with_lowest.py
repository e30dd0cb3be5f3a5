"""Pads with the dtype's lowest finite value instead of -inf: a vector of only -inf gets that
finite value as its max."""
# expect: wrong_answer

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
    padded = np.full(size, jnp.finfo(x.dtype).min, dtype=x.dtype)
    padded[:n] = np.asarray(x)
    return _EXECUTABLES[key](padded)
