"""Returns the Lowered stage itself instead of its text."""
# expect: wrong_answer

import jax


def stablehlo_text(f, *args):
    return jax.jit(f).lower(*args)
