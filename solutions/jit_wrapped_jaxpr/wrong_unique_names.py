"""Collects each body's names in a set: order and repeated primitives are lost."""
# expect: wrong_answer
# pitfall: Order and repeats matter

import jax


def jit_wrapped_jaxpr(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return [
        sorted({inner.primitive.name for inner in equation.params["jaxpr"].jaxpr.eqns})
        if equation.primitive.name == "jit"
        else equation.primitive.name
        for equation in closed.jaxpr.eqns
    ]
