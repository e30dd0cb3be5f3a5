"""Checkpointed blocks of 8 layers, but chained by a Python for loop: unrolled, the recomputation is not inside
a loop of the backward pass, and XLA:CPU schedules it during the forward pass, so every recomputed residual is
alive at once (about 13.8 MB)."""
# expect: wrong_answer
# pitfall: Chaining checkpointed blocks with a Python loop.

import jax
import jax.numpy as jnp

BLOCK = 8


def layer(h, w):
    return jnp.tanh(h @ w)


@jax.checkpoint
def _block(h, block_ws):
    def step(h, w):
        return layer(h, w), None

    h, _ = jax.lax.scan(step, h, block_ws)
    return h


def chain_loss(ws, x):
    h = x
    for start in range(0, ws.shape[0], BLOCK):
        h = _block(h, ws[start : start + BLOCK])
    return jnp.sum(h)
