"""Reference solution: jax.value_and_grad(f)(x), the value and the gradient from one forward and one backward pass.

jax.value_and_grad transforms f into a function that returns the pair (f(x), the gradient of f at x). It runs
f forward once, keeping what reverse mode needs, then runs the backward pass from a cotangent of one, so the
value comes for free with the gradient instead of from a second call of f. The gradient has x's shape and
dtype, and the value is the 0-d array f itself returns, both left as JAX arrays. The transformation composes
with whatever f already is, including a jitted function, and it computes exact derivatives, where finite
differences would only approximate them.
"""

import jax


def value_and_grad_of(f, x):
    return jax.value_and_grad(f)(x)
