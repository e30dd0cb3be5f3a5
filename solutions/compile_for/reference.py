"""Reference solution: jnp.sum compiled ahead of time for the example's signature.

jax.jit(jnp.sum).lower(example) traces jnp.sum for the example's abstract value (its shape and dtype, never
its values) and .compile() has XLA build an executable for that signature alone. The Compiled object is
returned without being called: it is the executable the problem asks for. Unlike a jitted function, which
traces and compiles again for each new signature, a Compiled has no cache and no tracer behind it, so any
other shape or dtype is refused with TypeError instead of quietly compiling again. The example is lowered
exactly as given, because a cast or a reshape would build the executable for another signature.
"""

import jax
import jax.numpy as jnp


def compile_for(example):
    return jax.jit(jnp.sum).lower(example).compile()
