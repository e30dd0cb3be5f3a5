"""jax.lax.map over the rows of a: a loop in the compiled program, but reverse mode stacks every iteration's (m, d)
difference for the backward pass."""
# expect: wrong_answer
# pitfall: Looping over rows

import jax
import jax.numpy as jnp


def sq_distances(a, b):
    def row(x):
        diff = x - b
        return jnp.sum(diff * diff, axis=-1)

    return jax.lax.map(row, a)


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
