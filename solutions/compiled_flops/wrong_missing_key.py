"""Indexes "flops" directly: a KeyError for programs with no arithmetic, where XLA leaves the key out."""
# expect: runtime_error

import jax


def compiled_flops(f, *args):
    return float(jax.jit(f).lower(*args).compile().cost_analysis()["flops"])
