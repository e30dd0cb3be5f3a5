"""Reference solution: the helper hands back the new key it split off, and the scan carries that key to the next step.

A JAX key is an immutable value: `jax.random.split(key)` does not advance anything, it returns new
keys, and rebinding the name `key` inside `noisy_update` changes only that function's local
variable. In the starter the carry of the scan therefore held the caller's key unchanged, so every
step split that same key into the same noise key and drew the same noise, and the key returned at
the end was the caller's own. Here `noisy_update` returns the first half of its split along with
the new state, and the scan body puts it into the carry: each step splits a key no step has split
before and draws only with the second half, which is used for nothing else. The key left in the
carry after the last step has been split from but never split or drawn with, so it is fresh for
the caller: drawing with it, or calling `simulate` again with it, repeats none of this run's noise.
"""

import functools

import jax


def noisy_update(key, x, rho, sigma):
    """One step of the process: x -> rho * x + sigma * noise, with noise drawn from key."""
    key, noise_key = jax.random.split(key)
    noise = jax.random.normal(noise_key, x.shape, x.dtype)
    return key, rho * x + sigma * noise


@functools.partial(jax.jit, static_argnames="steps")
def simulate(key, x0, steps, rho, sigma):
    """Run x_t = rho * x_{t-1} + sigma * noise_t for `steps` steps from x0; return (xs, next key)."""

    def step(carry, _):
        x, key = carry
        key, x = noisy_update(key, x, rho, sigma)
        return (x, key), x

    (_, key), xs = jax.lax.scan(step, (x0, key), None, length=steps)
    return xs, key
