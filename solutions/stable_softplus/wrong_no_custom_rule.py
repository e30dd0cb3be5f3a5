"""Right values and gradients, but only through jnp.logaddexp's own rule: no jax.custom_jvp of its own."""
# expect: wrong_answer
# pitfall: No rule of your own.

import jax.numpy as jnp


def stable_softplus(x):
    return jnp.logaddexp(x, 0)
