"""Differentiates half the squared error (the textbook convention): every row is half the asked gradient."""
# expect: wrong_answer

import jax


def half_squared_error(w, x, y):
    return 0.5 * (x @ w - y) ** 2


def per_example_grads(w, xs, ys):
    return jax.vmap(jax.grad(half_squared_error), in_axes=(None, 0, 0))(w, xs, ys)
