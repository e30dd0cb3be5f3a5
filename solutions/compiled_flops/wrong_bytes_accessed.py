"""Returns the memory traffic ("bytes accessed") instead of the flops."""
# expect: wrong_answer

import jax


def compiled_flops(f, *args):
    return float(jax.jit(f).lower(*args).compile().cost_analysis().get("bytes accessed", 0.0))
