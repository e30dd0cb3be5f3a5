"""Nests the other way: the members inside, the examples outside, so the default out_axes=0 of both maps
already puts the examples first and the members second."""

import jax


def ensemble_apply(model, params, x):
    over_members = jax.vmap(model, in_axes=({"member": 0, "shared": None}, None))
    return jax.vmap(over_members, in_axes=(None, 1))(params, x)
