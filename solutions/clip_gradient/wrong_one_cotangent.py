"""Keeps limit an ordinary input of the custom_vjp but has the backward pass return a cotangent for x only:
JAX wants one per differentiable input, so every gradient raises."""
# expect: runtime_error by test_the_upstream_weights_come_back_clipped
# pitfall: The backward pass of `limit`.

import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x, limit):
    return x


def _fwd(x, limit):
    return x, limit


def _bwd(limit, g):
    return (jnp.clip(g, -limit, limit),)


clip_gradient.defvjp(_fwd, _bwd)


def weighted_loss(x, w, limit):
    # Given: keep it as it is. The grader differentiates it in x to send w back through clip_gradient.
    return jnp.sum(clip_gradient(x, limit) * w)
