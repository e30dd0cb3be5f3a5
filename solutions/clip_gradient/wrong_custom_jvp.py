"""A jax.custom_jvp that clips the tangent: clip is not linear, so reverse mode cannot transpose it and raises."""
# expect: runtime_error
# pitfall: A `custom_jvp` instead.

import jax
import jax.numpy as jnp


@jax.custom_jvp
def clip_gradient(x, limit):
    return x


@clip_gradient.defjvp
def _clip_gradient_jvp(primals, tangents):
    (x, limit), (t, _) = primals, tangents
    return x, jnp.clip(t, -limit, limit)


def weighted_loss(x, w, limit):
    # Given: keep it as it is. The grader differentiates it in x to send w back through clip_gradient.
    return jnp.sum(clip_gradient(x, limit) * w)
