"""Starts from jnp.ones(x.shape), which is float32: integer and 16-bit float inputs come back as float32."""
# expect: wrong_answer

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def _power(x, n):
    result = jnp.ones(x.shape)
    for _ in range(n):
        result = result * x
    return result


def static_power(x, n):
    return _power(x, n)
