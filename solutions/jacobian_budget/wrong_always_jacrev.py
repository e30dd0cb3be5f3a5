"""Always reverse mode, as for a gradient: right values, but one VJP per output, so a function with 4 inputs and
64 outputs costs about 14 times what forward mode does, over the budget."""
# expect: wrong_answer
# pitfall: One mode for every shape.

import jax


def jacobian(f, x):
    return jax.jacrev(f)(x)
