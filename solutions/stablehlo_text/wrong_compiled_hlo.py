"""Compiles too and returns the optimised XLA HLO of the executable, not the StableHLO module."""
# expect: wrong_answer

import jax


def stablehlo_text(f, *args):
    return jax.jit(f).lower(*args).compile().as_text()
