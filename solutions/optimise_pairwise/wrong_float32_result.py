"""The expanded square computed in float32 whatever the inputs: within budget, but bfloat16 and float16 points get
float32 distances back."""
# expect: wrong_answer
# pitfall: Upcasting to float32

import jax.numpy as jnp


def sq_distances(a, b):
    a, b = a.astype(jnp.float32), b.astype(jnp.float32)
    a_norms = jnp.sum(a * a, axis=1)
    b_norms = jnp.sum(b * b, axis=1)
    return jnp.maximum(a_norms[:, None] + b_norms[None, :] - 2 * (a @ b.T), 0)


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
