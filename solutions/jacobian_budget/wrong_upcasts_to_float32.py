"""Differentiates in float32 for accuracy and forgets to cast back: right mode and values, but a float16 or
bfloat16 x gets a float32 Jacobian, not one of x's dtype."""
# expect: wrong_answer
# pitfall: Upcasting.

import jax
import jax.numpy as jnp


def jacobian(f, x):
    wide = x.astype(jnp.float32)
    m = jax.eval_shape(f, wide).shape[0]
    if m >= x.shape[0]:
        return jax.jacfwd(f)(wide)
    return jax.jacrev(f)(wide)
