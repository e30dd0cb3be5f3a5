"""The double where with its constants written as jnp.float32 scalars: those are strongly typed float32
arrays, so a float16 or bfloat16 row is promoted and its norm and gradient come back as float32."""
# expect: wrong_answer by test_called_directly_in_every_dtype
# pitfall: Changing the dtype.

import jax.numpy as jnp


def safe_norm(x):
    s = jnp.sum(x * x, axis=-1)
    nonzero = s > 0
    one, zero = jnp.float32(1.0), jnp.float32(0.0)
    safe_s = jnp.where(nonzero, s, one)
    return jnp.where(nonzero, jnp.sqrt(safe_s), zero)
