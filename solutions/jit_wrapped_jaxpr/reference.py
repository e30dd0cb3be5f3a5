"""Reference solution: the top-level primitive names of make_jaxpr(f) and of make_jaxpr(jax.jit(f))."""

import jax


def jit_wrapped_jaxpr(f, *args):
    plain = jax.make_jaxpr(f)(*args)
    wrapped = jax.make_jaxpr(jax.jit(f))(*args)
    return (
        [equation.primitive.name for equation in plain.jaxpr.eqns],
        [equation.primitive.name for equation in wrapped.jaxpr.eqns],
    )
