"""Clips the norm of the whole cotangent to limit (as optax's clip_by_global_norm) instead of each element."""
# expect: wrong_answer
# pitfall: Clipping the norm.

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, limit):
    return x


def _fwd(x, limit):
    return x, None


def _bwd(limit, residuals, g):
    norm = jnp.sqrt(jnp.sum(g * g))
    return (g * jnp.minimum(1.0, limit / norm).astype(g.dtype),)


clip_gradient.defvjp(_fwd, _bwd)


def weighted_loss(x, w, limit):
    # Given: keep it as it is. The grader differentiates it in x to send w back through clip_gradient.
    return jnp.sum(clip_gradient(x, limit) * w)
