"""Reference solution: jax.grad of one example's loss in w, batched with jax.vmap (w shared)."""

import jax


def per_example_grads(loss, w, xs, ys):
    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
