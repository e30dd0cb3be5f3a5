"""Jits a lambda that calls f: the same program, in a module JAX names @jit__lambda instead of
@jit_f. The module's name is JAX's, not part of the answer."""

import jax


def lower_abstract(f, shape, dtype):
    return jax.jit(lambda x: f(x)).lower(jax.ShapeDtypeStruct(tuple(shape), dtype))
