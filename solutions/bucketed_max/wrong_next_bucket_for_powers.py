"""Off by one bucket: a length that is already a power of two is padded to the next one
(8 goes to 16), so the values are right but the wrong executable runs and lengths 5 and 8,
which share a bucket, cost two compiles."""
# expect: wrong_answer
# pitfall: An off-by-one bucket.

import jax
import jax.numpy as jnp
import numpy as np

_EXECUTABLES = {}


def bucketed_max(x):
    n = x.shape[0]
    size = 1 << n.bit_length()
    key = (size, jnp.dtype(x.dtype))
    if key not in _EXECUTABLES:
        _EXECUTABLES[key] = jax.jit(jnp.max).lower(jax.ShapeDtypeStruct((size,), x.dtype)).compile()
    padded = np.full(size, -np.inf, dtype=x.dtype)
    padded[:n] = np.asarray(x)
    return _EXECUTABLES[key](padded)
