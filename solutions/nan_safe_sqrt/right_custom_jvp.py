"""A jax.custom_jvp whose tangent rule divides by a guarded norm and selects 0 for all-zero
rows: forward mode uses the rule, reverse mode transposes it, both finite everywhere."""

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
    nonzero = norm > 0
    dot = jnp.sum(x * dx, axis=-1)
    return norm, jnp.where(nonzero, dot / jnp.where(nonzero, norm, 1.0), 0.0)
