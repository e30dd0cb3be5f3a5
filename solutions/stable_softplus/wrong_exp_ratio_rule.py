"""A stable value, but the rule's derivative exp(x) / (1 + exp(x)) is inf / inf = nan for large x."""
# expect: wrong_answer
# pitfall: A derivative as a ratio of exponentials.

import jax
import jax.numpy as jnp


@jax.custom_jvp
def stable_softplus(x):
    return jnp.maximum(x, 0) + jnp.log1p(jnp.exp(-jnp.abs(x)))


@stable_softplus.defjvp
def _stable_softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    e = jnp.exp(x)
    return stable_softplus(x), e / (1 + e) * t
