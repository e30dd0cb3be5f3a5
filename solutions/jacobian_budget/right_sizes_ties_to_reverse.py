"""Right too: compares the sizes the other way round, reverse mode whenever the outputs are no more than the
inputs (a square Jacobian costs about the same either way), and learns m by calling f: under jit only the shape of
that call is used, and XLA removes the unused computation."""

import jax


def jacobian(f, x):
    if f(x).size <= x.size:
        return jax.jacrev(f)(x)
    return jax.jacfwd(f)(x)
