"""Reference solution: the double where: a stand-in of 1 under the square root, 0 outside it for all-zero rows.

jnp.where is differentiated as a selection: the branch it does not pick still gets a cotangent, of zero, and
the chain rule multiplies that zero by the branch's own derivative. At an all-zero row the derivative of sqrt
at 0 is infinite, and 0 * inf is NaN, so the single where of the starter gives the right values but NaN
gradients. The reference selects twice: the inner where replaces the sum of squares by 1 wherever it is 0, so
the square root is only ever evaluated where its value and slope are finite, and the outer where still returns
0 for those rows. Now the branch that is thrown away has a finite derivative, its zero cotangent stays zero,
and the gradient of an all-zero row is exactly 0 in reverse mode and in forward mode alike. The constants are
Python floats, which are weakly typed, so half-precision inputs keep their dtype.
"""

import jax.numpy as jnp


def safe_norm(x):
    s = jnp.sum(x * x, axis=-1)
    nonzero = s > 0
    safe_s = jnp.where(nonzero, s, 1.0)
    return jnp.where(nonzero, jnp.sqrt(safe_s), 0.0)
