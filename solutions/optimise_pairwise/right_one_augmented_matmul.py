"""Another right way: one matrix product of the points with two extra columns, [-2a, |a|^2, 1] @ [b, 1, |b|^2].T."""

import jax.numpy as jnp


def sq_distances(a, b):
    a_norms = jnp.sum(a * a, axis=1, keepdims=True)
    b_norms = jnp.sum(b * b, axis=1, keepdims=True)
    left = jnp.concatenate([-2 * a, a_norms, jnp.ones_like(a_norms)], axis=1)
    right = jnp.concatenate([b, jnp.ones_like(b_norms), b_norms], axis=1)
    return jnp.maximum(left @ right.T, 0)


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
