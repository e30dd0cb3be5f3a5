"""Right too, by hand: a jax.custom_vjp block whose forward pass keeps only its input, and whose backward pass
recomputes the block with jax.vjp; a scan over 8 such blocks."""

import jax
import jax.numpy as jnp

BLOCK = 8


def layer(h, w):
    return jnp.tanh(h @ w)


def _run_block(h, block_ws):
    def step(h, w):
        return layer(h, w), None

    h, _ = jax.lax.scan(step, h, block_ws)
    return h


@jax.custom_vjp
def _block(h, block_ws):
    return _run_block(h, block_ws)


def _block_fwd(h, block_ws):
    return _run_block(h, block_ws), (h, block_ws)


def _block_bwd(saved, cotangent):
    _, pullback = jax.vjp(_run_block, *saved)
    return pullback(cotangent)


_block.defvjp(_block_fwd, _block_bwd)


def chain_loss(ws, x):
    blocks = ws.reshape(ws.shape[0] // BLOCK, BLOCK, *ws.shape[1:])
    h, _ = jax.lax.scan(lambda h, block_ws: (_block(h, block_ws), None), x, blocks)
    return jnp.sum(h)
