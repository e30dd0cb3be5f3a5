"""Cuts the chain with lax.stop_gradient between blocks to save memory: the memory fits, but no gradient reaches
the weights of any block but the last, so the gradient is wrong."""
# expect: wrong_answer
# pitfall: Cutting the gradient to save memory.

import jax
import jax.numpy as jnp

BLOCK = 8


def layer(h, w):
    return jnp.tanh(h @ w)


def _block(h, block_ws):
    def step(h, w):
        return layer(h, w), None

    h, _ = jax.lax.scan(step, jax.lax.stop_gradient(h), block_ws)
    return h, None


def chain_loss(ws, x):
    blocks = ws.reshape(ws.shape[0] // BLOCK, BLOCK, *ws.shape[1:])
    h, _ = jax.lax.scan(jax.checkpoint(_block), x, blocks)
    return jnp.sum(h)
