"""Right too: a chain of jax.lax.cond, one per expert, is a conditional of conditionals; still one branch runs."""

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


def run_expert(mode, x, w):
    def pick(k):
        if k == len(EXPERTS) - 1:
            return lambda x: EXPERTS[k](x, w[k])
        return lambda x: jax.lax.cond(mode == k, lambda x: EXPERTS[k](x, w[k]), pick(k + 1), x)

    return pick(0)(x)


def expert_loss(mode, x, w, v):
    # Given: keep it as it is. The grader differentiates it in x.
    return jnp.sum(run_expert(mode, x, w) * v)
