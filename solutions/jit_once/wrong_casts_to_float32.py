"""Casts the weights and the batch to float32 to have fewer signatures: results of other dtypes
change dtype (and values)."""
# expect: wrong_answer
# pitfall: Changing inputs or outputs.

import jax
import jax.numpy as jnp


def jit_once(f, calls):
    batched = jax.jit(jax.vmap(f, in_axes=(None, 0)))

    def as_float32(tree):
        return jax.tree.map(lambda leaf: jnp.asarray(leaf, dtype=jnp.float32), tree)

    return [batched(as_float32(params), as_float32(xs)) for params, xs in calls]
