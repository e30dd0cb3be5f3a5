"""Goes through jit, lower and compile, but always sums in float32."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def aot_compiled_sum(x):
    x = x.astype(jnp.float32)
    return jax.jit(jnp.sum).lower(x).compile()(x)
