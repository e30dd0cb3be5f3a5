"""Keeps spec's shape but always exports for float32, so other dtypes are refused."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def export_roundtrip(f, spec):
    return jax.export.export(jax.jit(f))(jax.ShapeDtypeStruct(spec.shape, jnp.float32)).serialize()
