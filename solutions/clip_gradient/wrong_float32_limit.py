"""Makes limit a float32 array, so clip promotes float16 and bfloat16 cotangents: their gradients come back float32."""
# expect: wrong_answer
# pitfall: Changing the gradient's dtype.

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, limit):
    return x


def _fwd(x, limit):
    return x, None


def _bwd(limit, residuals, g):
    bound = jnp.asarray(limit, dtype=jnp.float32)
    return (jnp.clip(g, -bound, bound),)


clip_gradient.defvjp(_fwd, _bwd)


def weighted_loss(x, w, limit):
    # Given: keep it as it is. The grader differentiates it in x to send w back through clip_gradient.
    return jnp.sum(clip_gradient(x, limit) * w)
