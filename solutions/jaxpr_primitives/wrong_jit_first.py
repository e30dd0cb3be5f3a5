"""Wraps f in jax.jit first: the jaxpr then shows one call equation."""
# expect: wrong_answer
# pitfall: Do not wrap `f` in `jax.jit` first.

import jax


def jaxpr_primitives(f, *args):
    closed = jax.make_jaxpr(jax.jit(f))(*args)
    return [equation.primitive.name for equation in closed.jaxpr.eqns]
