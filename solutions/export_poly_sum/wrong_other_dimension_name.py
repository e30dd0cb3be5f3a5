"""Names the symbolic dimension "length" instead of "n", so in_avals breaks the contract."""
# expect: wrong_answer
# pitfall: The wrong dtype or name

import jax
import jax.numpy as jnp


def export_poly_sum():
    spec = jax.ShapeDtypeStruct(jax.export.symbolic_shape("length"), jnp.float32)
    return jax.export.export(jax.jit(jnp.sum))(spec)
