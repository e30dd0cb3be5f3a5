"""Writes the gradient of the squared error out by hand: right for that loss only, wrong for
every other loss it is given."""
# expect: wrong_answer
# pitfall: Deriving the gradient by hand


def per_example_grads(loss, w, xs, ys):
    return 2 * (xs @ w - ys)[:, None] * xs
