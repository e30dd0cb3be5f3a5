"""Loses order and repeats by collecting the names in a set."""
# expect: wrong_answer
# pitfall: Order and repeats matter.

import jax


def jaxpr_primitives(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return sorted({equation.primitive.name for equation in closed.jaxpr.eqns})
