"""Lists the top-level primitive names only: a jitted call stays the string "jit" instead of the
list of its body's primitives."""
# expect: wrong_answer

import jax


def jit_wrapped_jaxpr(f, *args):
    return [equation.primitive.name for equation in jax.make_jaxpr(f)(*args).jaxpr.eqns]
