"""Gives a jitted call's name parameter ("f", "cumsum") instead of opening its body."""
# expect: wrong_answer
# pitfall: The primitive's name, not the call's name

import jax


def jit_wrapped_jaxpr(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return [equation.params.get("name", equation.primitive.name) for equation in closed.jaxpr.eqns]
