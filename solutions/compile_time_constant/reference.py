"""Reference solution: the cosine table depends only on N and the dtype, so it is computed
while JAX traces, inside jax.ensure_compile_time_eval, in float32 and rounded once to x's
dtype: the jaxpr holds it as one constant, and only the product with x is staged."""

import jax
import jax.numpy as jnp


def cosine_transform(x):
    n = x.shape[-1]  # static: known while tracing
    with jax.ensure_compile_time_eval():
        i = jnp.arange(n, dtype=jnp.float32)
        angles = jnp.pi * jnp.outer(2 * i + 1, i) / (2 * n)
        table = jnp.cos(angles).astype(x.dtype)
    return x @ table
