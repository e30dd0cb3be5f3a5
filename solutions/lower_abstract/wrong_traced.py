"""Stops one stage early: jit(...).trace(...) gives a Traced, which is not lowered yet."""
# expect: wrong_answer

import jax


def lower_abstract(f, shape, dtype):
    return jax.jit(f).trace(jax.ShapeDtypeStruct(shape, dtype))
