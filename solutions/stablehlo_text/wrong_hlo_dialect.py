"""Asks the lowering for the HLO dialect: unoptimised HLO text, but not StableHLO."""
# expect: wrong_answer

import jax


def stablehlo_text(f, *args):
    return jax.jit(f).lower(*args).as_text(dialect="hlo")
