"""Gives the guarded norm a jax.custom_jvp whose tangent is (x . dx) / norm, unguarded: at an
all-zero row that is 0 / 0, NaN in forward mode and, transposed, in reverse mode."""
# expect: wrong_answer
# pitfall: A custom derivative rule that divides by the norm.

import jax
import jax.numpy as jnp


@jax.custom_jvp
def safe_norm(x):
    s = jnp.sum(x * x, axis=-1)
    return jnp.where(s > 0, jnp.sqrt(jnp.where(s > 0, s, 1.0)), 0.0)


@safe_norm.defjvp
def _safe_norm_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    norm = safe_norm(x)
    return norm, jnp.sum(x * dx, axis=-1) / norm
