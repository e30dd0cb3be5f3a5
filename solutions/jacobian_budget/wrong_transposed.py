"""Builds forward mode by hand with vmap over the input basis, but stacks the JVPs as rows: the result is J's
transpose, of shape (n, m) (and for a square Jacobian the right shape with the wrong values)."""
# expect: wrong_answer
# pitfall: The layout.

import jax
import jax.numpy as jnp


def jacobian(f, x):
    n = x.shape[0]
    out = jax.eval_shape(f, x)
    if out.shape[0] >= n:
        _, push = jax.linearize(f, x)
        return jax.vmap(push)(jnp.eye(n, dtype=x.dtype))
    return jax.jacrev(f)(x).T
