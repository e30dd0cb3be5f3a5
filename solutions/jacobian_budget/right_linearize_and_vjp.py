"""Right too, by hand: forward mode as jax.linearize's linear map pushed along each basis vector of the inputs
(columns of J, stacked on axis 1), reverse mode as jax.vjp's pullback applied to each basis vector of the outputs
(rows of J), both under vmap, so one batched pass each."""

import jax
import jax.numpy as jnp


def jacobian(f, x):
    n = x.shape[0]
    out = jax.eval_shape(f, x)
    if out.shape[0] >= n:
        _, push = jax.linearize(f, x)
        return jax.vmap(push, out_axes=1)(jnp.eye(n, dtype=x.dtype))
    _, pull = jax.vjp(f, x)
    return jax.vmap(lambda row: pull(row)[0])(jnp.eye(out.shape[0], dtype=out.dtype))
