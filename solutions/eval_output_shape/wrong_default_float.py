"""Takes the shape from jax.eval_shape but reports float32 for every output, whatever f's dtype rules give."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def eval_output_shape(f, *specs):
    out = jax.eval_shape(f, *specs)
    return jax.ShapeDtypeStruct(out.shape, jnp.float32)
