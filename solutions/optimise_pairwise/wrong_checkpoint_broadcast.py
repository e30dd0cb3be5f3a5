"""jax.checkpoint around the broadcast: nothing is saved, but the backward pass recomputes the (n, m, d) difference
and holds it whole, so the peak is unchanged."""
# expect: wrong_answer
# pitfall: Checkpointing the broadcast

import jax
import jax.numpy as jnp


@jax.checkpoint
def sq_distances(a, b):
    diff = a[:, None, :] - b[None, :, :]
    return jnp.sum(diff * diff, axis=-1)


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
