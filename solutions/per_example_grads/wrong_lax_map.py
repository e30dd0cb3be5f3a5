"""Runs jax.grad on one example after another with jax.lax.map: a sequential scan, not a vmap."""
# expect: wrong_answer

import jax


def squared_error(w, x, y):
    return (x @ w - y) ** 2


def per_example_grads(w, xs, ys):
    return jax.lax.map(lambda pair: jax.grad(squared_error)(w, *pair), (xs, ys))
