"""jax.checkpoint around the scan's step: each layer is recomputed, but its input is still stored, one
activation per layer (about 4.5 MB), over the budget: only blocks of layers store fewer."""
# expect: wrong_answer
# pitfall: Checkpointing every layer.

import jax
import jax.numpy as jnp


def layer(h, w):
    return jnp.tanh(h @ w)


def chain_loss(ws, x):
    def step(h, w):
        return layer(h, w), None

    h, _ = jax.lax.scan(jax.checkpoint(step), x, ws)
    return jnp.sum(h)
