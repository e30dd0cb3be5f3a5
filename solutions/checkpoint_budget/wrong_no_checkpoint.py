"""The chain as a plain lax.scan: right gradients, but reverse mode stores every layer's residuals (about
12.8 MB at the budget's shapes), far over the 3 MiB budget."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def layer(h, w):
    return jnp.tanh(h @ w)


def chain_loss(ws, x):
    def step(h, w):
        return layer(h, w), None

    h, _ = jax.lax.scan(step, x, ws)
    return jnp.sum(h)
