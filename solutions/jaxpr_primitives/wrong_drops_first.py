"""Skips the first equation."""
# expect: wrong_answer

import jax


def jaxpr_primitives(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return [equation.primitive.name for equation in closed.jaxpr.eqns[1:]]
