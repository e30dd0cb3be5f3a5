"""Collects the names in a set: order and repeated primitives are lost."""
# expect: wrong_answer

import jax


def jit_wrapped_jaxpr(f, *args):
    plain = jax.make_jaxpr(f)(*args)
    wrapped = jax.make_jaxpr(jax.jit(f))(*args)
    return (
        sorted({equation.primitive.name for equation in plain.jaxpr.eqns}),
        sorted({equation.primitive.name for equation in wrapped.jaxpr.eqns}),
    )
