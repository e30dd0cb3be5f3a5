"""Forces the sum into x's dtype: small integers overflow and keep their narrow dtype (bool sums become any)."""
# expect: wrong_answer
# pitfall: The wrong dtype.

import jax.numpy as jnp


def positive_sum(x):
    return jnp.sum(jnp.where(x > 0, x, jnp.zeros((), dtype=x.dtype)), dtype=x.dtype)
