"""Keeps at most sixteen equations (a cap left over from debugging): long programs lose their tail."""
# expect: wrong_answer

import jax


def jaxpr_primitives(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return [equation.primitive.name for equation in closed.jaxpr.eqns[:16]]
