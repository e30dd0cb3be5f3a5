"""Returns the two lists in the wrong order: the jitted function's first."""
# expect: wrong_answer

import jax


def jit_wrapped_jaxpr(f, *args):
    plain = jax.make_jaxpr(f)(*args)
    wrapped = jax.make_jaxpr(jax.jit(f))(*args)
    return (
        [equation.primitive.name for equation in wrapped.jaxpr.eqns],
        [equation.primitive.name for equation in plain.jaxpr.eqns],
    )
