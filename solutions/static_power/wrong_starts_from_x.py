"""Starts from x and multiplies n - 1 times: right for n >= 1, but n = 0 gives x instead of ones."""
# expect: wrong_answer
# pitfall: The starting value.

from functools import partial

import jax


@partial(jax.jit, static_argnums=1)
def _power(x, n):
    result = x
    for _ in range(n - 1):
        result = result * x
    return result


def static_power(x, n):
    return _power(x, n)
