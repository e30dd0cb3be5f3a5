"""Leaves out out_axes, so the members come back on axis 0 and the examples on axis 1: the wrong shape,
or the right shape with transposed values when there are as many members as examples."""
# expect: wrong_answer by test_square_shapes
# pitfall: Forgetting out_axes

import jax


def ensemble_apply(model, params, x):
    over_examples = jax.vmap(model, in_axes=(None, 1))
    return jax.vmap(over_examples, in_axes=({"member": 0, "shared": None}, None))(params, x)
