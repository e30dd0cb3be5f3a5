"""Reference solution: a jax.custom_vjp whose value is x and whose backward pass clips the cotangent.

jax.custom_vjp lets a function say what reverse mode does with it instead of having JAX differentiate its
body. The forward rule returns x unchanged and keeps no residuals, since the backward rule needs nothing from
the forward pass. The backward rule receives the incoming cotangent and returns it clipped elementwise to
[-limit, limit], which is exactly the gradient the problem asks for, in the cotangent's own dtype. limit is
marked non-differentiable with nondiff_argnums, so it reaches the backward rule as a plain value and gets no
cotangent of its own. Because the rule is attached to the function, it applies wherever the function is used:
under grad, value_and_grad, jit and vmap alike.
"""

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
