"""Opens jitted calls inside jitted calls too: the body of a call is itself opened, one level
deeper than asked."""
# expect: wrong_answer
# pitfall: One level down, no further

import jax


def opened(jaxpr):
    return [
        opened(equation.params["jaxpr"].jaxpr) if equation.primitive.name == "jit" else equation.primitive.name
        for equation in jaxpr.eqns
    ]


def jit_wrapped_jaxpr(f, *args):
    return opened(jax.make_jaxpr(f)(*args).jaxpr)
