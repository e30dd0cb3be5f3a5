"""Differentiates the summed loss: one (d,) gradient for the whole batch instead of one row per example."""
# expect: wrong_answer
# pitfall: The gradient of the summed loss

import jax
import jax.numpy as jnp


def per_example_grads(loss, w, xs, ys):
    return jax.grad(lambda v: jnp.sum(jax.vmap(loss, in_axes=(None, 0, 0))(v, xs, ys)))(w)
