"""Builds the table with jnp at run time, without jax.ensure_compile_time_eval: the right
values, but the jaxpr computes the table (iota, mul, cos, ...) on every call instead of
holding it as a constant."""
# expect: wrong_answer
# pitfall: Building the table with `jnp` outside the block

import jax.numpy as jnp


def cosine_transform(x):
    n = x.shape[-1]
    i = jnp.arange(n, dtype=jnp.float32)
    table = jnp.cos(jnp.pi * jnp.outer(2 * i + 1, i) / (2 * n)).astype(x.dtype)
    return x @ table
