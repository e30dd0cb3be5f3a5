"""Computes the angles in x's own dtype: a constant table, but for float16 and bfloat16 the
angles are rounded before the cosine (bfloat16 keeps 8 bits: 20.6 becomes 20.625), so the
table's entries are off by far more than one rounding."""
# expect: wrong_answer
# pitfall: Computing the angles in `x`'s dtype

import jax
import jax.numpy as jnp


def cosine_transform(x):
    n = x.shape[-1]
    with jax.ensure_compile_time_eval():
        i = jnp.arange(n, dtype=x.dtype)
        table = jnp.cos(jnp.pi * jnp.outer(2 * i + 1, i) / (2 * n))
    return x @ table
