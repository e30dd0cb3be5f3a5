"""Uses lax.fori_loop but drops static_argnums so that a new step count does not recompile:
steps is then traced, the fori_loop becomes a while_loop, and jax.grad raises as before."""
# expect: runtime_error
# pitfall: `fori_loop` with a traced bound.

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def simulate(x0, rate, steps):
    return lax.fori_loop(0, steps, lambda i, x: x - rate * jnp.tanh(x), x0)
