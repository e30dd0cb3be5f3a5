"""Routes row by row, as a per-token mixture of experts would: jax.vmap of lax.switch over the mode repeated
for every row. A batched index turns the switch into a select over all four experts, so each of them runs on
every row, over the flop budget of one expert."""
# expect: wrong_answer by test_jit_runs_one_expert
# pitfall: A batched index under `vmap`.

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
    # One routing decision per row (token), as in a mixture of experts; here every row gets the same mode.
    modes = jnp.full((x.shape[0],), mode)

    def one_row(m, row):
        return jax.lax.switch(m, EXPERTS, row, w[m])

    return jax.vmap(one_row)(modes, x)


def expert_loss(mode, x, w, v):
    # Given: keep it as it is. The grader differentiates it in x.
    return jnp.sum(run_expert(mode, x, w) * v)
