"""Differentiates the summed loss: one (d,) gradient for the whole batch instead of one row per example."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def per_example_grads(w, xs, ys):
    return jax.grad(lambda v: jnp.sum((xs @ v - ys) ** 2))(w)
