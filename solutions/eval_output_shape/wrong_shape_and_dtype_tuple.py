"""Returns a (shape, dtype) tuple instead of a jax.ShapeDtypeStruct."""
# expect: wrong_answer
# pitfall: The return type.

import jax


def eval_output_shape(f, *specs):
    out = jax.eval_shape(f, *specs)
    return tuple(out.shape), str(out.dtype)
