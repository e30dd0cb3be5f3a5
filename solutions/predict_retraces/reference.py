"""Reference solution: the cache key (dtype, shape, weak type) of each described call; count distinct keys.

jax.jit traces f the first time it meets a new cache key and reuses the trace for every later call with the
same key, whatever the values. For one array argument the key is its abstract value: the shape, the dtype and
whether it is weakly typed. A Python float or int is passed as a 0-d weakly typed float32 or int32 value,
which jit keys apart from a strong 0-d array of the same dtype, while a Python bool is a strong bool[] and
shares the entry of a bool[] array. The number of traces is therefore the number of distinct keys among the
calls, which the reference counts from the descriptions alone, never building an argument or running JAX.
"""

import re

ARRAY = re.compile(r"^([a-z0-9]+)\[([0-9,]*)\]$")
PYTHON_SCALARS = {float: ("float32", True), int: ("int32", True), bool: ("bool", False)}


def cache_key(call):
    match = ARRAY.match(call)
    if match:
        dtype, dims = match.groups()
        return dtype, tuple(int(n) for n in dims.split(",") if n), False
    value = {"True": True, "False": False}.get(call)
    if value is None:
        value = float(call) if any(mark in call for mark in ".en") else int(call)
    dtype, weak = PYTHON_SCALARS[type(value)]
    return dtype, (), weak


def predict_retraces(calls):
    return len({cache_key(call) for call in calls})
