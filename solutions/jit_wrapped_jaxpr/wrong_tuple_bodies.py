"""Opens each jitted call into a tuple of names instead of a list: right names, wrong item type."""
# expect: wrong_answer

import jax


def jit_wrapped_jaxpr(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return [
        tuple(inner.primitive.name for inner in equation.params["jaxpr"].jaxpr.eqns)
        if equation.primitive.name == "jit"
        else equation.primitive.name
        for equation in closed.jaxpr.eqns
    ]
