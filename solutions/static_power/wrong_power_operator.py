"""Jits x ** n with n static: right values and traces, but one integer_pow, not a loop of multiplications."""
# expect: wrong_answer

from functools import partial

import jax


@partial(jax.jit, static_argnums=1)
def _power(x, n):
    return x**n


def static_power(x, n):
    return _power(x, n)
