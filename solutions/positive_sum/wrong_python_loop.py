"""A Python generator with an if per element: jit cannot decide `v > 0` on a traced value."""
# expect: runtime_error
# pitfall: Python loops with `if`.


def positive_sum(x):
    return sum(v for v in x if v > 0)
