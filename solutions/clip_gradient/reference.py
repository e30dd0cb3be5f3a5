"""Reference solution: a jax.custom_vjp whose value is x and whose backward pass clips the cotangent."""

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, limit):
    return x


def _clip_gradient_fwd(x, limit):
    return x, None  # the backward pass needs nothing from the forward one


def _clip_gradient_bwd(limit, residuals, g):
    return (jnp.clip(g, -limit, limit),)


clip_gradient.defvjp(_clip_gradient_fwd, _clip_gradient_bwd)


def weighted_loss(x, w, limit):
    # Given: keep it as it is. The grader differentiates it in x to send w back through clip_gradient.
    return jnp.sum(clip_gradient(x, limit) * w)
