"""Takes every Python scalar for weakly typed, bools included: a Python bool is a strong
bool[], the same cache entry as a bool[] array."""
# expect: wrong_answer
# pitfall: Calling every Python scalar weak

import re

ARRAY = re.compile(r"^([a-z0-9]+)\[([0-9,]*)\]$")


def cache_key(call):
    match = ARRAY.match(call)
    if match:
        dtype, dims = match.groups()
        return dtype, tuple(int(n) for n in dims.split(",") if n), False
    if call in ("True", "False"):
        return "bool", (), True
    return ("float32" if any(mark in call for mark in ".en") else "int32"), (), True


def predict_retraces(calls):
    return len({cache_key(call) for call in calls})
