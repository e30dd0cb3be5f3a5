"""jax.checkpoint around the whole chain: the forward pass stores nothing, but the backward pass recomputes the
whole chain at once and stores all of its residuals then, so the peak is the plain scan's (about 12.8 MB)."""
# expect: wrong_answer
# pitfall: Checkpointing the whole chain.

import jax
import jax.numpy as jnp


def layer(h, w):
    return jnp.tanh(h @ w)


@jax.checkpoint
def _chain(ws, x):
    def step(h, w):
        return layer(h, w), None

    h, _ = jax.lax.scan(step, x, ws)
    return h


def chain_loss(ws, x):
    return jnp.sum(_chain(ws, x))
