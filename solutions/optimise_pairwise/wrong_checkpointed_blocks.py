"""Checkpointed blocks of 4 rows in jax.lax.map: one block's (4, m, d) difference at a time, under the loose budget
but over the tight one."""
# expect: wrong_answer by test_the_gradient_meets_the_tight_budget
# pitfall: Recomputing blocks of rows

import jax
import jax.numpy as jnp

ROWS = 4


@jax.checkpoint
def _block(rows, b):
    diff = rows[:, None, :] - b[None, :, :]
    return jnp.sum(diff * diff, axis=-1)


def sq_distances(a, b):
    n, d = a.shape
    padded = jnp.pad(a, ((0, -n % ROWS), (0, 0)))
    blocks = jax.lax.map(lambda rows: _block(rows, b), padded.reshape(padded.shape[0] // ROWS, ROWS, d))
    return blocks.reshape(padded.shape[0], b.shape[0])[:n]


def kernel_loss(a, b):
    # Given: keep it as it is. The grader differentiates it in a and b.
    return jnp.sum(jnp.exp(-sq_distances(a, b)))
