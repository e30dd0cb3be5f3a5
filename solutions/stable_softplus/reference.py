"""Reference solution: a stable value (logaddexp with 0) and a custom JVP rule giving sigmoid(x) * t."""

import jax
import jax.numpy as jnp


@jax.custom_jvp
def stable_softplus(x):
    return jnp.logaddexp(x, 0)


@stable_softplus.defjvp
def _stable_softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return stable_softplus(x), jax.nn.sigmoid(x) * t
