"""Ignores the dtype asked for and always lowers for float32."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def lower_abstract(f, shape, dtype):
    return jax.jit(f).lower(jax.ShapeDtypeStruct(shape, jnp.float32))
