"""Prints the jaxpr: JAX's own IR, one stage before StableHLO."""
# expect: wrong_answer

import jax


def stablehlo_text(f, *args):
    return str(jax.make_jaxpr(f)(*args))
