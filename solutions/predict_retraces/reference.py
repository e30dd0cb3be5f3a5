"""Reference solution: one trace per distinct cache key. A call's key is its argument's shape,
dtype and weak type: Python floats and ints are weakly typed 0-d values, Python bools and
arrays are not. Nothing is traced or run to find it."""

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
