"""Blocks of 8 layers checkpointed with a policy that saves the matrix products (dots_with_no_batch_dims_saveable),
recomputing only the cheap tanh: every layer's product is still stored (about 7.1 MB), over the budget."""
# expect: wrong_answer

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
    block = jax.checkpoint(_block, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    h, _ = jax.lax.scan(block, x, blocks)
    return jnp.sum(h)
