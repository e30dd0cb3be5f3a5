"""The starter's broadcast difference: its forward pass compiles with no temporaries, but its gradient keeps the
whole (n, m, d) difference (8 MiB at the budget's shapes)."""
# expect: wrong_answer
# pitfall: Measuring only the forward pass

import jax.numpy as jnp


def sq_distances(a, b):
    diff = a[:, None, :] - b[None, :, :]
    return jnp.sum(diff * diff, axis=-1)


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
