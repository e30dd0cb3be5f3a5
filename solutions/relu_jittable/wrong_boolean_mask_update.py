"""Zeroes the negatives through a boolean mask index: right when called directly, but jit cannot trace a mask index."""
# expect: runtime_error
# pitfall: Boolean-mask updates.


def relu_jittable(x):
    return x.at[x < 0].set(0)
