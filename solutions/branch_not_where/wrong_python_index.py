"""Picks the expert by indexing the Python tuple with mode: fine when called directly, but under jax.jit mode is
a tracer and tuple indexing raises TracerIntegerConversionError."""
# expect: runtime_error
# pitfall: A Python `if`, `int(mode)` or `EXPERTS[mode]`.

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
    return EXPERTS[mode](x, w[mode])


def expert_loss(mode, x, w, v):
    # Given: keep it as it is. The grader differentiates it in x.
    return jnp.sum(run_expert(mode, x, w) * v)
