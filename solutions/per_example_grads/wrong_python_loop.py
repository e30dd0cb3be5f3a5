"""One jax.grad per example in a Python loop, stacked: right values, but the program is unrolled per example."""
# expect: wrong_answer
# pitfall: A Python loop over the examples

import jax
import jax.numpy as jnp


def per_example_grads(loss, w, xs, ys):
    rows = [jax.grad(loss)(w, xs[i], ys[i]) for i in range(xs.shape[0])]
    if not rows:
        return jnp.zeros(xs.shape, dtype=w.dtype)
    return jnp.stack(rows)
