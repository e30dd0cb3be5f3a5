"""Computes in float32 for accuracy: float16 and bfloat16 inputs get float32 gradients."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def per_example_grads(loss, w, xs, ys):
    w, xs, ys = (a.astype(jnp.float32) for a in (w, xs, ys))
    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
