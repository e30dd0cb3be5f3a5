"""Runs the members one after another with jax.lax.map: right values and a program of fixed size, but a
sequential loop (a scan) over the ensemble instead of one batched computation."""
# expect: wrong_answer by test_one_batched_program
# pitfall: A loop over the members

import jax
import jax.numpy as jnp


def ensemble_apply(model, params, x):
    over_examples = jax.vmap(model, in_axes=(None, 1))
    outputs = jax.lax.map(
        lambda member: over_examples({"member": member, "shared": params["shared"]}, x), params["member"]
    )
    return jnp.swapaxes(outputs, 0, 1)
