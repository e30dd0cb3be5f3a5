"""Serializes the export and returns the bytes, not the Exported object asked for."""
# expect: wrong_answer
# pitfall: Returning the serialized bytes

import jax
import jax.numpy as jnp


def export_poly_sum():
    spec = jax.ShapeDtypeStruct(jax.export.symbolic_shape("n"), jnp.float32)
    return jax.export.export(jax.jit(jnp.sum))(spec).serialize()
