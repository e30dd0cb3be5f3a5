"""Takes the diagonal of a @ b.T: the right numbers, from an n-by-n product and no batched dot."""
# expect: wrong_answer
# pitfall: The diagonal of a matrix product.

import jax.numpy as jnp


def batched_dot(a, b):
    return jnp.diagonal(a @ b.T)
