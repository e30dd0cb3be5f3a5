"""A Python loop over the rows of a: the program grows with n, and reverse mode keeps every row's (m, d) difference,
all of them together as large as the broadcast."""
# expect: wrong_answer
# pitfall: Looping over rows

import jax.numpy as jnp


def sq_distances(a, b):
    rows = []
    for i in range(a.shape[0]):
        diff = a[i] - b
        rows.append(jnp.sum(diff * diff, axis=-1))
    return jnp.stack(rows) if rows else jnp.zeros((0, b.shape[0]), a.dtype)


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
