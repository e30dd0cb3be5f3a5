"""Computes every expert's elementwise features (x, x, log x, sqrt x) before a lax.switch over the matrix
products: within the flop budget, but the untaken log and square root are still differentiated, so the
gradient is NaN wherever x has a zero."""
# expect: wrong_answer
# pitfall: Hoisting the cheap part.

import jax
import jax.numpy as jnp


def expert_tanh(x, w):
    return jnp.tanh(x @ w) @ w


def expert_sin(x, w):
    return jnp.sin(x @ w) @ w


def expert_log(x, w):
    # Log features: meant for positive x only (log(0) is -inf).
    return jnp.tanh(jnp.log(x) @ w) @ w


def expert_sqrt(x, w):
    # Square-root features: meant for positive x only (the slope of sqrt at 0 is infinite).
    return jnp.tanh(jnp.sqrt(x) @ w) @ w


EXPERTS = (expert_tanh, expert_sin, expert_log, expert_sqrt)

# The elementwise part is cheap, so compute it for every expert up front and switch only the products.
HEADS = (
    lambda f, w: jnp.tanh(f @ w) @ w,
    lambda f, w: jnp.sin(f @ w) @ w,
    lambda f, w: jnp.tanh(f @ w) @ w,
    lambda f, w: jnp.tanh(f @ w) @ w,
)


def run_expert(mode, x, w):
    features = jnp.stack([x, x, jnp.log(x), jnp.sqrt(x)])
    return jax.lax.switch(mode, HEADS, features[mode], w[mode])


def expert_loss(mode, x, w, v):
    # Given: keep it as it is. The grader differentiates it in x.
    return jnp.sum(run_expert(mode, x, w) * v)
