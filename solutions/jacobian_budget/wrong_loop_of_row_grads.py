"""One jax.grad per output in a Python loop: right values and right orientation, but m backward passes, unrolled
into one program under jit. XLA simplifies each row's one-hot cotangent, yet for 4 inputs and 64 outputs the
backward passes through the hidden layer still cost about 8 times forward mode, over the budget."""
# expect: wrong_answer
# pitfall: A loop of gradients.

import jax
import jax.numpy as jnp


def jacobian(f, x):
    m = jax.eval_shape(f, x).shape[0]
    if m == 0:
        return jnp.zeros((0, x.shape[0]), x.dtype)
    return jnp.stack([jax.grad(lambda x, i=i: f(x)[i])(x) for i in range(m)])
