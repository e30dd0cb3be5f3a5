"""Uses the closed form x**2 * n(n-1)(2n-1)/6: no loop at all, which the problem asks for."""
# expect: wrong_answer


def loop_sum_squares(x, n):
    weight = n * (n - 1) * (2 * n - 1) // 6
    return x * x * weight
