"""Blocks of 8 layers checkpointed with policy=everything_saveable: the policy lets every intermediate be
saved, so nothing is recomputed and the blocks store all their residuals (about 10.4 MB)."""
# expect: wrong_answer
# pitfall: A policy that saves.

import jax
import jax.numpy as jnp

BLOCK = 8


def layer(h, w):
    return jnp.tanh(h @ w)


def _block(h, block_ws):
    def step(h, w):
        return layer(h, w), None

    h, _ = jax.lax.scan(step, h, block_ws)
    return h, None


def chain_loss(ws, x):
    blocks = ws.reshape(ws.shape[0] // BLOCK, BLOCK, *ws.shape[1:])
    block = jax.checkpoint(_block, policy=jax.checkpoint_policies.everything_saveable)
    h, _ = jax.lax.scan(block, x, blocks)
    return jnp.sum(h)
