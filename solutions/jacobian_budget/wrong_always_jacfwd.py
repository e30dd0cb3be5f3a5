"""Always forward mode: right values, but one JVP per input, so a function with 64 inputs and 4 outputs costs
about 13 times what reverse mode does, over the budget."""
# expect: wrong_answer

import jax


def jacobian(f, x):
    return jax.jacfwd(f)(x)
