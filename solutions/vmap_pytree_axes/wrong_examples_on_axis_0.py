"""Takes the examples from axis 0 of x, vmap's default, although they lie along axis 1: a shape error
when x is not square, and the rows of x treated as examples when it is."""
# expect: wrong_answer by test_square_shapes
# pitfall: Examples taken from axis 0

import jax


def ensemble_apply(model, params, x):
    over_examples = jax.vmap(model, in_axes=(None, 0))
    return jax.vmap(over_examples, in_axes=({"member": 0, "shared": None}, None), out_axes=1)(params, x)
