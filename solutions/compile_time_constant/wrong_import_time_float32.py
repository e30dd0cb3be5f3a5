"""Computes every table once, when the module loads, with NumPy in float32: constants, but a
float16 or bfloat16 x meets a float32 table and x @ table promotes the result to float32."""
# expect: wrong_answer
# pitfall: A table of another dtype

import numpy as np


def _table(n):
    i = np.arange(n)
    return np.cos(np.pi * np.outer(2 * i + 1, i) / max(2 * n, 1)).astype(np.float32)


TABLES = {n: _table(n) for n in range(65)}


def cosine_transform(x):
    return x @ TABLES[x.shape[-1]]
