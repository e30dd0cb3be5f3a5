"""Computes in float32 for accuracy: float16 and bfloat16 inputs get float32 gradients."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def squared_error(w, x, y):
    return (x @ w - y) ** 2


def per_example_grads(w, xs, ys):
    w, xs, ys = (a.astype(jnp.float32) for a in (w, xs, ys))
    return jax.vmap(jax.grad(squared_error), in_axes=(None, 0, 0))(w, xs, ys)
