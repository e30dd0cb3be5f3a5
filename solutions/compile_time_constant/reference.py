"""Reference solution: a cosine table computed while tracing, in float32, rounded once to x's dtype.

Under tracing, jnp operations on values that are known are normally staged into the jaxpr too, so a table
built with jnp would be recomputed (iota, multiplies, cos) on every call. Inside jax.ensure_compile_time_eval
the same operations run eagerly during tracing instead, and since the table depends only on N, which the
static shape gives, the result is a concrete array that the jaxpr holds as one constant. The angles are
computed in float32 and the whole table is rounded to x's dtype before the block ends, because angles rounded
to 16 bits give wrong cosines and a cast after the block would be staged as a convert_element_type. What
remains in the jaxpr is the single dot_general of x with the table, which is exactly the transform.
"""

import jax
import jax.numpy as jnp


def cosine_transform(x):
    n = x.shape[-1]  # static: known while tracing
    with jax.ensure_compile_time_eval():
        i = jnp.arange(n, dtype=jnp.float32)
        angles = jnp.pi * jnp.outer(2 * i + 1, i) / (2 * n)
        table = jnp.cos(angles).astype(x.dtype)
    return x @ table
