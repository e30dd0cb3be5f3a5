"""Another right way: the executable takes the padded vector and the true length, and masks the
padding itself with jnp.where (the length is an argument, so one executable serves the bucket)."""

import jax
import jax.numpy as jnp
import numpy as np

_EXECUTABLES = {}


def _masked_max(padded, length):
    keep = jnp.arange(padded.shape[0]) < length
    return jnp.max(jnp.where(keep, padded, -jnp.inf))


def bucketed_max(x):
    n = x.shape[0]
    size = 1
    while size < n:
        size *= 2
    key = (size, str(x.dtype))
    if key not in _EXECUTABLES:
        _EXECUTABLES[key] = (
            jax.jit(_masked_max)
            .lower(jax.ShapeDtypeStruct((size,), x.dtype), jax.ShapeDtypeStruct((), jnp.int32))
            .compile()
        )
    padded = np.zeros(size, dtype=x.dtype)  # any filler: the mask hides it
    padded[:n] = np.asarray(x)
    return _EXECUTABLES[key](padded, np.int32(n))
