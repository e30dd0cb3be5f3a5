"""Goes one stage too far: returns the Compiled executable, not the Lowered stage."""
# expect: wrong_answer

import jax


def lower_abstract(f, shape, dtype):
    return jax.jit(f).lower(jax.ShapeDtypeStruct(shape, dtype)).compile()
