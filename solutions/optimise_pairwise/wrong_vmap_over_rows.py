"""jax.vmap of one row's distances: vmap batches the row back into the same broadcast, and the gradient keeps the
same (n, m, d) difference."""
# expect: wrong_answer
# pitfall: Mapping over rows with vmap

import jax
import jax.numpy as jnp


def _row(x, b):
    diff = x - b
    return jnp.sum(diff * diff, axis=-1)


def sq_distances(a, b):
    return jax.vmap(_row, in_axes=(0, None))(a, b)


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
