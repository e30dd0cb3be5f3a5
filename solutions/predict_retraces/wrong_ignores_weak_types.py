"""Keys calls by shape and dtype only: a Python float and a float32[] array share an entry,
but the float is weakly typed, so jit traces for each."""
# expect: wrong_answer
# pitfall: Forgetting weak types

import re

ARRAY = re.compile(r"^([a-z0-9]+)\[([0-9,]*)\]$")


def cache_key(call):
    match = ARRAY.match(call)
    if match:
        dtype, dims = match.groups()
        return dtype, tuple(int(n) for n in dims.split(",") if n)
    if call in ("True", "False"):
        return "bool", ()
    return ("float32" if any(mark in call for mark in ".en") else "int32"), ()


def predict_retraces(calls):
    return len({cache_key(call) for call in calls})
