"""Right another way: limit stays an ordinary input of the custom_vjp, and its cotangent is zero."""

import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x, limit):
    return x


def _fwd(x, limit):
    return x, limit


def _bwd(limit, g):
    return jnp.clip(g, -limit, limit), jnp.zeros_like(limit)


clip_gradient.defvjp(_fwd, _bwd)


def weighted_loss(x, w, limit):
    # Given: keep it as it is. The grader differentiates it in x to send w back through clip_gradient.
    return jnp.sum(clip_gradient(x, limit) * w)
