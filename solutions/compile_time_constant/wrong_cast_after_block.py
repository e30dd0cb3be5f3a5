"""Computes the float32 table inside jax.ensure_compile_time_eval but rounds it to x's dtype
after the block: for float16 and bfloat16 inputs the jaxpr converts the table
(convert_element_type) on every call."""
# expect: wrong_answer
# pitfall: Leaving the block too early

import jax
import jax.numpy as jnp


def cosine_transform(x):
    n = x.shape[-1]
    with jax.ensure_compile_time_eval():
        i = jnp.arange(n, dtype=jnp.float32)
        table = jnp.cos(jnp.pi * jnp.outer(2 * i + 1, i) / (2 * n))
    return x @ table.astype(x.dtype)
