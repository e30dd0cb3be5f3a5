"""Clips the value x in the forward pass too, so clip_gradient(x) is no longer x."""
# expect: wrong_answer
# pitfall: Clipping the value.

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, limit):
    return jnp.clip(x, -limit, limit)


def _fwd(x, limit):
    return clip_gradient(x, limit), None


def _bwd(limit, residuals, g):
    return (jnp.clip(g, -limit, limit),)


clip_gradient.defvjp(_fwd, _bwd)


def weighted_loss(x, w, limit):
    # Given: keep it as it is. The grader differentiates it in x to send w back through clip_gradient.
    return jnp.sum(clip_gradient(x, limit) * w)
