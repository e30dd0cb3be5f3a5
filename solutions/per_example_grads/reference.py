"""Reference solution: jax.grad of one example's loss in w, batched with jax.vmap (w shared).

jax.grad(loss) is the gradient of one example's loss with respect to its first argument, w, which is exactly
one row of the answer. jax.vmap with in_axes=(None, 0, 0) maps that function over the examples while passing
the same w to every one, so a single call returns the (n, d) array of per-example gradients. This works
because grad and vmap compose: JAX traces the per-example gradient once and adds the batch axis to every
operation of it, so the program is one batched computation, not a loop over examples. The gradient of the
summed loss would give their sum instead, and differentiating by hand would only fit one loss, where grad
works for any loss it is given.
"""

import jax


def per_example_grads(loss, w, xs, ys):
    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
