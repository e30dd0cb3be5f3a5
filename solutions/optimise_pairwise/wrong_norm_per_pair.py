"""jnp.linalg.norm of every pair's difference, squared: the same (n, m, d) residual, and a NaN gradient where two
points coincide."""
# expect: wrong_answer
# pitfall: A norm per pair

import jax
import jax.numpy as jnp


def sq_distances(a, b):
    pair = lambda x, y: jnp.linalg.norm(x - y) ** 2  # noqa: E731
    return jax.vmap(jax.vmap(pair, in_axes=(None, 0)), in_axes=(0, None))(a, b)


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
