"""Right another way: each element of g is divided by max(1, |g| / limit), which is clipping up to rounding."""

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, limit):
    return x


def _fwd(x, limit):
    return x, None


def _bwd(limit, residuals, g):
    return (g / jnp.maximum(1.0, jnp.abs(g) / limit),)


clip_gradient.defvjp(_fwd, _bwd)


def weighted_loss(x, w, limit):
    # Given: keep it as it is. The grader differentiates it in x to send w back through clip_gradient.
    return jnp.sum(clip_gradient(x, limit) * w)
