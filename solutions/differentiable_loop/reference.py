"""Reference solution: lax.scan with a static length of steps, carrying x alone, under the same jax.jit.

Reverse mode has to replay a loop backwards, which needs the number of iterations and the values each one saw.
A lax.while_loop supports forward mode only, because its trip count is decided at run time and JAX cannot
store an unknown number of residuals, hence the ValueError under jax.grad. lax.scan with length=steps has a
trip count known while tracing, since steps is static, so JAX can differentiate it: the forward pass stores
one carry per step and the backward pass is another scan that runs in reverse. The body is traced once
whatever steps is, so the program does not grow with the number of steps (a Python for loop would unroll every
step into it), and carrying x alone with no emitted outputs returns exactly the state after steps updates.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.jit, static_argnums=2)
def simulate(x0, rate, steps):
    def step(x, _):
        return x - rate * jnp.tanh(x), None

    x, _ = lax.scan(step, x0, None, length=steps)
    return x
