"""Leaves vmap's in_axes at its default, so w is mapped along its own axis like the examples: vmap refuses the
call when n differs from d, and when they are equal each example's loss receives a single entry of w, a 0-d
array, instead of the whole vector.

w is shared by every example; only xs and ys carry the batch axis, so w's entry in in_axes must be None.
"""
# expect: runtime_error by test_two_examples
# pitfall: Batching `w` too

import jax


def per_example_grads(loss, w, xs, ys):
    return jax.vmap(jax.grad(loss))(w, xs, ys)
