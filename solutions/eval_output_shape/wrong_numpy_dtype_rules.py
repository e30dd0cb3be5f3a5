"""Shape from jax.eval_shape, dtype from NumPy's promotion of the input dtypes.

jnp's rules differ: sums of small ints, means of ints, products with Python floats.
"""
# expect: wrong_answer
# pitfall: Guessing the dtype.

import jax
import numpy as np


def eval_output_shape(f, *specs):
    out = jax.eval_shape(f, *specs)
    try:
        dtype = np.result_type(*(spec.dtype for spec in specs))
    except TypeError:  # NumPy has no common type for float16 and bfloat16: keep the first
        dtype = specs[0].dtype
    return jax.ShapeDtypeStruct(out.shape, dtype)
