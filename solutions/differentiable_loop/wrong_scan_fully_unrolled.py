"""Uses lax.scan of static length, as the fix should, but passes unroll=True: the jaxpr still holds a
single scan equation whatever steps is, yet JAX lowers that scan to steps inlined copies of the
update, so the program XLA compiles grows with steps as a Python for loop's does.

Values and gradients are right, and jax.make_jaxpr looks the same at every step count, which is why
a check of the jaxpr alone lets it through. What the user cannot afford is the compiled program:
a few hundred steps are a few hundred copies of the step, and the compile time and memory that go
with them, once for every step count they run.
"""
# expect: wrong_answer
# pitfall: A scan unrolled in full.

import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.jit, static_argnums=2)
def simulate(x0, rate, steps):
    def step(x, _):
        return x - rate * jnp.tanh(x), None

    x, _ = lax.scan(step, x0, None, length=steps, unroll=True)
    return x
