"""Gates the experts with a one-hot weighted sum, as a soft mixture of experts would: all four run, and
0 * NaN is NaN, so where the untaken log expert is undefined (x <= 0) even the value is NaN."""
# expect: wrong_answer
# pitfall: Selecting after computing.

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
    gate = jax.nn.one_hot(mode, len(EXPERTS), dtype=x.dtype)
    return sum(gate[k] * expert(x, w[k]) for k, expert in enumerate(EXPERTS))


def expert_loss(mode, x, w, v):
    # Given: keep it as it is. The grader differentiates it in x.
    return jnp.sum(run_expert(mode, x, w) * v)
