"""Runs the loop eagerly, op by op: right values, but nothing is traced or compiled as one program per n."""
# expect: wrong_answer
# pitfall: Not jitting at all.

import jax.numpy as jnp


def static_power(x, n):
    result = jnp.ones_like(x)
    for _ in range(n):
        result = result * x
    return result
