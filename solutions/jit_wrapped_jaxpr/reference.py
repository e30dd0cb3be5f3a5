"""Reference solution: the top-level equations of make_jaxpr(f), each jitted call opened one level.

When a function calls a jitted function, tracing does not inline it: make_jaxpr records one equation whose
primitive is named jit and whose params["jaxpr"] holds the traced body as a closed jaxpr. The top level of the
jaxpr therefore lists f's own operations with each jitted call as a single equation. The reference lists each
equation's primitive name and, for a jit equation, the names of its body's top-level equations instead, going
no deeper, so a jitted call nested inside that body stays the name "jit". f itself is traced, because tracing
jax.jit(f) would wrap the whole program in one more jit equation.
"""

import jax


def names(jaxpr):
    return [equation.primitive.name for equation in jaxpr.eqns]


def jit_wrapped_jaxpr(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return [
        names(equation.params["jaxpr"].jaxpr) if equation.primitive.name == "jit" else equation.primitive.name
        for equation in closed.jaxpr.eqns
    ]
