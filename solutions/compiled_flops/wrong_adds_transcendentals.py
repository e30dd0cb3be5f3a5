"""Counts transcendental operations (exp, sin, ...) as flops too."""
# expect: wrong_answer

import jax


def compiled_flops(f, *args):
    costs = jax.jit(f).lower(*args).compile().cost_analysis()
    return float(costs.get("flops", 0.0) + costs.get("transcendentals", 0.0))
