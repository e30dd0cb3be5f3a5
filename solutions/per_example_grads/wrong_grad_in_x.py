"""Differentiates in the example's features x instead of the weights w: rows of the same shape,
other numbers."""
# expect: wrong_answer
# pitfall: Differentiating in the wrong argument

import jax


def per_example_grads(loss, w, xs, ys):
    return jax.vmap(jax.grad(loss, argnums=1), in_axes=(None, 0, 0))(w, xs, ys)
