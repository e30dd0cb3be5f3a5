"""Reference solution: the StableHLO module that jax.jit(f).lower(*args) produces, as text."""

import jax


def stablehlo_text(f, *args):
    return jax.jit(f).lower(*args).as_text()
