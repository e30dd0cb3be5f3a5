"""Maps the members inside and the examples outside but keeps out_axes=1 on the outer map, which then
puts the examples, not the members, on axis 1."""
# expect: wrong_answer by test_square_shapes
# pitfall: Nesting the maps one way and placing the axes the other

import jax


def ensemble_apply(model, params, x):
    over_members = jax.vmap(model, in_axes=({"member": 0, "shared": None}, None))
    return jax.vmap(over_members, in_axes=(None, 1), out_axes=1)(params, x)
