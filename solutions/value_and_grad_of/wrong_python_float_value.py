"""Returns the value as a Python float: the JAX array and its dtype are lost."""
# expect: wrong_answer
# pitfall: Returning a Python number.

import jax


def value_and_grad_of(f, x):
    return float(f(x)), jax.grad(f)(x)
