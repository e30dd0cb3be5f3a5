"""Reference solution: the row function's gradient, vmapped over the rows, jitted, lowered and compiled.

The transformations compose from the inside out. jax.grad(f) is the gradient of one row; jax.vmap maps it over
axis 0, so each row is differentiated on its own even when f couples a row's elements, which differentiating
the whole batch at once would mix together. jax.jit of that batched gradient is then lowered for the example
batch's exact shape and dtype and compiled, so the returned Compiled executable is one XLA program computing
every row's gradient in the batch's own dtype. The transformations have to be applied before compiling,
because a Compiled can only be called, never differentiated or mapped. The executable's own signature check
refuses any other shape or dtype with TypeError, and an empty batch needs no first row, since vmap works on
the abstract shape.
"""

import jax


def compiled_grad(f, example_batch):
    return jax.jit(jax.vmap(jax.grad(f))).lower(example_batch).compile()
