"""Exports the mean, dividing the sum by the symbolic length n."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def export_poly_sum():
    spec = jax.ShapeDtypeStruct(jax.export.symbolic_shape("n"), jnp.float32)
    return jax.export.export(jax.jit(jnp.mean))(spec)
