"""Defaults to the int 0 when XLA leaves "flops" out: a Python int, not the float 0.0 asked for."""
# expect: wrong_answer

import jax


def compiled_flops(f, *args):
    costs = jax.jit(f).lower(*args).compile().cost_analysis()
    return costs.get("flops", 0)
