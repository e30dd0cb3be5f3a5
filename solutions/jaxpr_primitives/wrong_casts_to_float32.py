"""Casts every argument to float32 before tracing: the dtype conversions f makes on mixed dtypes vanish."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def jaxpr_primitives(f, *args):
    closed = jax.make_jaxpr(f)(*(jnp.asarray(a, dtype=jnp.float32) for a in args))
    return [equation.primitive.name for equation in closed.jaxpr.eqns]
