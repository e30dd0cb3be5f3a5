"""Returns the results as a tuple instead of a list: the right arrays, traced once per signature."""
# expect: wrong_answer

import jax


def jit_once(f, xs):
    jitted = jax.jit(f)
    return tuple(jitted(x) for x in xs)
