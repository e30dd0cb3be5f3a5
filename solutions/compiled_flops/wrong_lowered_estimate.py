"""Reads the cost analysis of the Lowered stage: XLA's estimate before it optimised the program."""
# expect: wrong_answer

import jax


def compiled_flops(f, *args):
    return float(jax.jit(f).lower(*args).cost_analysis().get("flops", 0.0))
