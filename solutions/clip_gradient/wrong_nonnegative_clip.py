"""Clips the cotangent to [0, limit]: every negative gradient becomes zero."""
# expect: wrong_answer
# pitfall: Forgetting the negative side.

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, limit):
    return x


def _fwd(x, limit):
    return x, None


def _bwd(limit, residuals, g):
    return (jnp.clip(g, 0, limit),)


clip_gradient.defvjp(_fwd, _bwd)


def weighted_loss(x, w, limit):
    # Given: keep it as it is. The grader differentiates it in x to send w back through clip_gradient.
    return jnp.sum(clip_gradient(x, limit) * w)
