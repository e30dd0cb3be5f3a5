"""Reference solution: expand the square so that one matrix product does the work, then clamp the result at zero.

The starter's difference a[:, None, :] - b[None, :, :] costs nothing in the forward pass, because XLA fuses it
into the sum, but reverse mode keeps it as a residual for the backward pass: the gradient in a and in b both
read it, so the compiled gradient materialises all n * m * d values of it. Expanding the square rewrites every
distance with the two rows' squared norms and their dot product, and the dot products of all pairs are one
matrix product, a @ b.T, whose gradient needs only (n, m) arrays and the inputs themselves. The expanded form
subtracts two nearly equal numbers when two points are close, so rounding can leave an entry slightly below
zero, which no squared distance is and which a square root after it would turn into NaN; jnp.maximum with 0
removes that without moving any other entry. Everything stays in the inputs' dtype, so bfloat16 comes in and
goes out as bfloat16, and the kernel loss and its gradient are unchanged up to rounding.
"""

import jax.numpy as jnp


def sq_distances(a, b):
    a_norms = jnp.sum(a * a, axis=1)
    b_norms = jnp.sum(b * b, axis=1)
    cross = a @ b.T
    expanded = a_norms[:, None] + b_norms[None, :] - 2 * cross
    return jnp.maximum(expanded, 0)


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
