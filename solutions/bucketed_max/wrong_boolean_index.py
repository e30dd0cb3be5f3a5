"""Drops the padding with a boolean index inside the compiled function: x[mask] has a shape
that depends on values, which jit cannot lower (NonConcreteBooleanIndexError)."""
# expect: runtime_error
# pitfall: A boolean index inside the compiled function.

import jax
import jax.numpy as jnp
import numpy as np

_EXECUTABLES = {}


def _masked_max(padded, length):
    return jnp.max(padded[jnp.arange(padded.shape[0]) < length])


def bucketed_max(x):
    n = x.shape[0]
    size = 1 << (n - 1).bit_length()
    key = (size, jnp.dtype(x.dtype))
    if key not in _EXECUTABLES:
        _EXECUTABLES[key] = (
            jax.jit(_masked_max)
            .lower(jax.ShapeDtypeStruct((size,), x.dtype), jax.ShapeDtypeStruct((), jnp.int32))
            .compile()
        )
    padded = np.zeros(size, dtype=x.dtype)
    padded[:n] = np.asarray(x)
    return _EXECUTABLES[key](padded, np.int32(n))
