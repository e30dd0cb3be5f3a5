"""Reference solution: jax.lax.switch runs only the expert that mode picks, under jit and grad alike.

jax.lax.switch takes the traced mode as the index of a tuple of functions and lowers to an XLA conditional,
which decides at run time which branch to execute: the three experts not chosen cost nothing, and XLA's cost
analysis counts the conditional as its costliest branch only. The weight matrix is taken out of w with the
traced mode as well, which is a cheap dynamic slice. A jnp.where, or a one-hot weighted sum, would give the
same values for good inputs but only after computing all four experts. Reverse mode is a conditional too: only
the chosen expert is differentiated, so the infinite slope of log or sqrt at zero in an expert that was not
chosen never meets a zero cotangent and never turns the gradient into NaN. Since mode is traced and not
static, one compiled program serves all four experts without tracing again.
"""

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
    # One conditional: XLA runs the chosen branch only, and reverse mode differentiates only it.
    return jax.lax.switch(mode, EXPERTS, x, w[mode])


def expert_loss(mode, x, w, v):
    # Given: keep it as it is. The grader differentiates it in x.
    return jnp.sum(run_expert(mode, x, w) * v)
