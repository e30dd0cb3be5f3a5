"""A Python loop with .at[i].set: the right numbers, but an unrolled program with no scan."""
# expect: wrong_answer

import jax.numpy as jnp


def scan_cumsum(x):
    dtype = jnp.int32 if x.dtype == jnp.bool_ else x.dtype
    out = jnp.zeros(x.shape, dtype=dtype)
    total = jnp.zeros((), dtype=dtype)
    for i in range(x.shape[0]):
        total = total + x[i].astype(dtype)
        out = out.at[i].set(total)
    return out
