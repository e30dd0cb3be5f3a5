"""Reports the name parameter of jit equations ("f", "cumsum") instead of their primitive's name."""
# expect: wrong_answer

import jax


def names(closed):
    return [equation.params.get("name", equation.primitive.name) for equation in closed.jaxpr.eqns]


def jit_wrapped_jaxpr(f, *args):
    return names(jax.make_jaxpr(f)(*args)), names(jax.make_jaxpr(jax.jit(f))(*args))
