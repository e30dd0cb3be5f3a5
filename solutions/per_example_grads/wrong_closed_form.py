"""Writes the gradient out by hand: right for this loss, but no jax.grad is involved."""
# expect: wrong_answer


def per_example_grads(w, xs, ys):
    return 2 * (xs @ w - ys)[:, None] * xs
