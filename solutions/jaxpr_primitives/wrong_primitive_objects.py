"""Returns the Primitive objects instead of their names."""
# expect: wrong_answer
# pitfall: Names, not objects.

import jax


def jaxpr_primitives(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return [equation.primitive for equation in closed.jaxpr.eqns]
