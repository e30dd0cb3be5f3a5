"""The expanded square without the clamp at zero: within budget, but rounding leaves slightly negative squared
distances where two points coincide."""
# expect: wrong_answer
# pitfall: Forgetting the clamp

import jax.numpy as jnp


def sq_distances(a, b):
    a_norms = jnp.sum(a * a, axis=1)
    b_norms = jnp.sum(b * b, axis=1)
    return a_norms[:, None] + b_norms[None, :] - 2 * (a @ b.T)


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
