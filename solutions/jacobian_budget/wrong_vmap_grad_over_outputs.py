"""The Jacobian as jax.vmap of jax.grad over the output index: one batched program, right values, but it is
reverse mode whatever the shape (one VJP per output), about 14 times forward mode's cost for 4 inputs and 64
outputs."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def jacobian(f, x):
    m = jax.eval_shape(f, x).shape[0]
    if m == 0:
        return jnp.zeros((0, x.shape[0]), x.dtype)
    return jax.vmap(lambda i: jax.grad(lambda x: f(x)[i])(x))(jnp.arange(m))
