"""Traces jax.jit(f) instead of f: the whole program becomes one jitted call, opened, so f's own
jitted calls stay unopened inside it."""
# expect: wrong_answer
# pitfall: Tracing `jax.jit(f)` instead of `f`

import jax


def jit_wrapped_jaxpr(f, *args):
    closed = jax.make_jaxpr(jax.jit(f))(*args)
    return [[inner.primitive.name for inner in equation.params["jaxpr"].jaxpr.eqns] for equation in closed.jaxpr.eqns]
