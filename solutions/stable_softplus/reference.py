"""Reference solution: a jax.custom_jvp whose value is logaddexp(x, 0) and whose tangent rule is sigmoid(x) times t.

Written as log(1 + exp(x)), softplus overflows for large x, since exp(x) is infinite long before the answer
is, and JAX's automatic derivative of that expression is a ratio of exponentials that turns into inf / inf,
which is NaN. jnp.logaddexp(x, 0) computes the same value without overflow, by factoring out the larger of x
and 0. jax.custom_jvp then replaces the derivative JAX would derive with one written by hand: sigmoid(x),
which is exactly the derivative of softplus, finite everywhere, and computed stably by jax.nn.sigmoid. The
rule returns the value and sigmoid(x) times the tangent, and JAX derives reverse mode from that forward rule
by linearizing and transposing it, so jax.grad, jax.jvp, jit and vmap all use it.
"""

import jax
import jax.numpy as jnp


@jax.custom_jvp
def stable_softplus(x):
    return jnp.logaddexp(x, 0)


@stable_softplus.defjvp
def _stable_softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return stable_softplus(x), jax.nn.sigmoid(x) * t
