"""Splits the chain into just two checkpointed blocks in a lax.scan, because print_saved_residuals then lists the
fewest activations (the two blocks' inputs), without measuring: recomputing a 32-layer block keeps all its
residuals alive at once, about 6.9 MB, over the budget."""
# expect: wrong_answer by test_the_gradient_fits_the_memory_budget
# pitfall: Counting residuals instead of measuring.

import jax
import jax.numpy as jnp


def layer(h, w):
    return jnp.tanh(h @ w)


def _block(h, block_ws):
    def step(h, w):
        return layer(h, w), None

    h, _ = jax.lax.scan(step, h, block_ws)
    return h, None


def chain_loss(ws, x):
    # Two blocks save only two activations: the fewest of any split into blocks.
    blocks = ws.reshape(2, ws.shape[0] // 2, *ws.shape[1:])
    h, _ = jax.lax.scan(jax.checkpoint(_block), x, blocks)
    return jnp.sum(h)
