"""Selects among the four experts' outputs with jnp.select: every expert runs (four experts' flops, over the
budget), and where an untaken log or square root is infinite its zero cotangent makes the gradient NaN."""
# expect: wrong_answer
# pitfall: Selecting after computing.

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


def run_expert(mode, x, w):
    outputs = [expert(x, w[k]) for k, expert in enumerate(EXPERTS)]
    return jnp.select([mode == k for k in range(len(EXPERTS))], outputs)


def expert_loss(mode, x, w, v):
    # Given: keep it as it is. The grader differentiates it in x.
    return jnp.sum(run_expert(mode, x, w) * v)
