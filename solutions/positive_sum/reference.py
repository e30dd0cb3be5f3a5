"""Reference solution: jnp.where keeps the positive entries and puts a zero of x's dtype elsewhere, then jnp.sum.

Under jax.jit every array must have a shape known while tracing, so a boolean index such as x[x > 0], whose
length depends on the values, cannot be compiled. jnp.where(x > 0, x, zero) keeps the shape of x instead: the
entries that are not strictly positive are replaced by a zero that adds nothing, and the sum is then the same
as the sum of the positive entries alone. The zero is a 0-d array of x's own dtype, because a Python 0.0 is a
weakly typed float and would turn an integer x into float32. jnp.sum then picks the result's dtype as it does
for x (small integers widen to int32), and an empty x gives 0 with no special case.
"""

import jax.numpy as jnp


def positive_sum(x):
    return jnp.sum(jnp.where(x > 0, x, jnp.zeros((), dtype=x.dtype)))
