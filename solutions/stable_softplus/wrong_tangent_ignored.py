"""The rule returns sigmoid(x) without multiplying by the tangent: not linear in t, so gradients come out zero."""
# expect: wrong_answer
# pitfall: Forgetting the tangent.

import jax
import jax.numpy as jnp


@jax.custom_jvp
def stable_softplus(x):
    return jnp.logaddexp(x, 0)


@stable_softplus.defjvp
def _stable_softplus_jvp(primals, tangents):
    (x,), _ = primals, tangents
    return stable_softplus(x), jax.nn.sigmoid(x)
