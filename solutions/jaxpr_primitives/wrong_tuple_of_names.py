"""Returns the names as a tuple instead of a list: the right names in the right order, the wrong type."""
# expect: wrong_answer

import jax


def jaxpr_primitives(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return tuple(equation.primitive.name for equation in closed.jaxpr.eqns)
