"""Loops over the members in Python and stacks their outputs: right values, but the traced program holds
one copy of the model per member and grows with the ensemble."""
# expect: wrong_answer by test_one_batched_program
# pitfall: A loop over the members

import jax
import jax.numpy as jnp


def ensemble_apply(model, params, x):
    over_examples = jax.vmap(model, in_axes=(None, 1))
    size = jax.tree_util.tree_leaves(params["member"])[0].shape[0]
    outputs = []
    for i in range(size):
        member = jax.tree_util.tree_map(lambda leaf: leaf[i], params["member"])
        outputs.append(over_examples({"member": member, "shared": params["shared"]}, x))
    if not outputs:  # no members: the empty result, shaped by one member's output
        one = jax.tree_util.tree_map(lambda leaf: jax.ShapeDtypeStruct(leaf.shape[1:], leaf.dtype), params["member"])
        shape = jax.eval_shape(over_examples, {"member": one, "shared": params["shared"]}, x)
        return jnp.zeros((shape.shape[0], 0, *shape.shape[1:]), shape.dtype)
    return jnp.stack(outputs, axis=1)
