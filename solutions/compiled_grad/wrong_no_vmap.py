"""Forgets vmap and differentiates f on the whole batch: right for elementwise row functions, but
where a row's elements are coupled (jnp.sum(row) ** 2) the gradient mixes every row together."""
# expect: wrong_answer
# pitfall: Forgetting `vmap`.

import jax


def compiled_grad(f, example_batch):
    return jax.jit(jax.grad(f)).lower(example_batch).compile()
