"""Right value through jax.jit, but compiled implicitly at the call, not ahead of time."""
# expect: wrong_answer
# pitfall: A plain `jax.jit(f)(x)` is not AOT.

import jax
import jax.numpy as jnp


def aot_compiled_sum(x):
    return jax.jit(jnp.sum)(x)
