"""Computes in float32: float16 and bfloat16 inputs come back as float32."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


@jax.custom_jvp
def stable_softplus(x):
    return jnp.logaddexp(x.astype(jnp.float32), 0.0)


@stable_softplus.defjvp
def _stable_softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return stable_softplus(x), jax.nn.sigmoid(x.astype(jnp.float32)) * t
