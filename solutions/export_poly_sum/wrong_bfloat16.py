"""Exports for a bfloat16 vector (to save memory): float32 inputs are refused."""
# expect: runtime_error

import jax
import jax.numpy as jnp


def export_poly_sum():
    spec = jax.ShapeDtypeStruct(jax.export.symbolic_shape("n"), jnp.bfloat16)
    return jax.export.export(jax.jit(jnp.sum))(spec)
