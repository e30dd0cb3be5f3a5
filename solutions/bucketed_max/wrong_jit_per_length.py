"""Calls one jitted jnp.max on x as it is: right values, but jit compiles once per exact length."""
# expect: wrong_answer
# pitfall: `jnp.max(x)` or `jax.jit(jnp.max)(x)` on `x` as it is.

import jax
import jax.numpy as jnp

_max = jax.jit(jnp.max)


def bucketed_max(x):
    return _max(x)
