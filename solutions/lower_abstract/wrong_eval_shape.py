"""Abstract evaluation instead of lowering: returns the ShapeDtypeStruct of f's output."""
# expect: wrong_answer

import jax


def lower_abstract(f, shape, dtype):
    return jax.eval_shape(f, jax.ShapeDtypeStruct(shape, dtype))
