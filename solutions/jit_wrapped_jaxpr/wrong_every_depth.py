"""Walks into nested jaxprs and lists every primitive at any depth in one flat list."""
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
    return every_primitive(jax.make_jaxpr(f)(*args).jaxpr)
