"""Walks into nested jaxprs and lists every primitive at any depth, not only the top-level equations."""
# expect: wrong_answer

import jax
from jax.extend import core


def every_primitive(jaxpr):
    names = []
    for equation in jaxpr.eqns:
        names.append(equation.primitive.name)
        for param in equation.params.values():
            if isinstance(param, core.ClosedJaxpr):
                names += every_primitive(param.jaxpr)
            elif isinstance(param, core.Jaxpr):
                names += every_primitive(param)
    return names


def jit_wrapped_jaxpr(f, *args):
    plain = jax.make_jaxpr(f)(*args)
    wrapped = jax.make_jaxpr(jax.jit(f))(*args)
    return every_primitive(plain.jaxpr), every_primitive(wrapped.jaxpr)
