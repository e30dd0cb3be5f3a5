"""(x + |x|) / 2: right for floats, but true division turns integer inputs into float32."""
# expect: wrong_answer
# pitfall: Changing the dtype.

import jax.numpy as jnp


def relu_jittable(x):
    return (x + jnp.abs(x)) / 2
