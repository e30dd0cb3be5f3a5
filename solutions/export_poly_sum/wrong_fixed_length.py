"""Exports for one concrete length (8): the Exported refuses every other length."""
# expect: runtime_error
# pitfall: Exporting for one concrete length

import jax
import jax.numpy as jnp


def export_poly_sum():
    return jax.export.export(jax.jit(jnp.sum))(jax.ShapeDtypeStruct((8,), jnp.float32))
