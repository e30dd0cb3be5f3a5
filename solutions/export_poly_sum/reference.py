"""Reference solution: export jax.jit(jnp.sum) for a float32 vector of symbolic length n.

jax.export.symbolic_shape("n") gives a shape whose single dimension is a symbol, not a number, and a
ShapeDtypeStruct built from it describes every float32 vector at once. Exporting jax.jit(jnp.sum) for that
spec traces the function once with the symbolic length and lowers it to a StableHLO module with a dynamic
dimension, so the resulting Exported has in_avals of shape (n,) and calls on vectors of any length at least 1
without exporting again. Summing needs no fact about n beyond its being a dimension, so no constraint is
needed. The Exported object itself is returned: it is what the problem inspects, not its serialized bytes.
"""

import jax
import jax.numpy as jnp


def export_poly_sum():
    spec = jax.ShapeDtypeStruct(jax.export.symbolic_shape("n"), jnp.float32)
    return jax.export.export(jax.jit(jnp.sum))(spec)
