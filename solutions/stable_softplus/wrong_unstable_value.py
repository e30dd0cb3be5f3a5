"""A correct rule, but the value is log1p(exp(x)), which overflows to inf above about 88 in float32."""
# expect: wrong_answer
# pitfall: A rule on top of an unstable value.

import jax
import jax.numpy as jnp


@jax.custom_jvp
def stable_softplus(x):
    return jnp.log1p(jnp.exp(x))


@stable_softplus.defjvp
def _stable_softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return stable_softplus(x), jax.nn.sigmoid(x) * t
