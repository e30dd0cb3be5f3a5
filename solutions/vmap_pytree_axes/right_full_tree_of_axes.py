"""Spells in_axes out leaf by leaf (a full tree of axes rather than a prefix), moves the examples to the
front of x by hand, and swaps the two leading axes of the result, all under jax.jit."""

import jax
import jax.numpy as jnp


@jax.jit(static_argnums=0)
def ensemble_apply(model, params, x):
    axes = {
        "member": jax.tree_util.tree_map(lambda leaf: 0, params["member"]),
        "shared": jax.tree_util.tree_map(lambda leaf: None, params["shared"]),
    }
    members_first = jax.vmap(jax.vmap(model, in_axes=(None, 0)), in_axes=(axes, None))(params, jnp.swapaxes(x, 0, 1))
    return jax.tree_util.tree_map(lambda out: jnp.swapaxes(out, 0, 1), members_first)
