"""Reads the jitted side from jax.jit(f).trace(*args).jaxpr: that is the body jit traced, not the wrapper's call."""
# expect: wrong_answer

import jax


def jit_wrapped_jaxpr(f, *args):
    plain = jax.make_jaxpr(f)(*args)
    body = jax.jit(f).trace(*args).jaxpr
    return (
        [equation.primitive.name for equation in plain.jaxpr.eqns],
        [equation.primitive.name for equation in body.jaxpr.eqns],
    )
