"""Assumes f keeps its first argument's shape and dtype (true only of elementwise, dtype-preserving functions)."""
# expect: wrong_answer
# pitfall: Guessing from the inputs.

import jax


def eval_output_shape(f, *specs):
    return jax.ShapeDtypeStruct(specs[0].shape, specs[0].dtype)
