"""Copies every shared leaf once per member with jnp.repeat so that one in_axes=0 fits all of params:
right values, but the program builds an ensemble-sized copy of each shared leaf."""
# expect: wrong_answer by test_shared_leaves_stay_shared
# pitfall: Copying the shared leaves per member

import jax
import jax.numpy as jnp


def ensemble_apply(model, params, x):
    size = jax.tree_util.tree_leaves(params["member"])[0].shape[0]
    shared = jax.tree_util.tree_map(lambda leaf: jnp.repeat(leaf[None], size, axis=0), params["shared"])
    over_examples = jax.vmap(model, in_axes=(None, 1))
    return jax.vmap(over_examples, in_axes=(0, None), out_axes=1)({"member": params["member"], "shared": shared}, x)
