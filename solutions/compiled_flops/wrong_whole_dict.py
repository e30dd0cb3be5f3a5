"""Returns the whole cost analysis instead of the one figure asked for."""
# expect: wrong_answer

import jax


def compiled_flops(f, *args):
    return jax.jit(f).lower(*args).compile().cost_analysis()
