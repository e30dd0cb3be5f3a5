"""Walks JAX's promotion lattice but forgets that 64-bit mode is off: uint32 + int8 meets at
int64, which JAX holds as int32 when 64-bit types are disabled, not "int64"."""
# expect: wrong_answer
# pitfall: Forgetting that 64-bit mode is off.

import re

# Each type and the types it promotes to directly; "int*" and "float*" are the weak Python
# int and float.
EDGES = {
    "bool": ["int*"],
    "int*": ["uint8", "int8"],
    "uint8": ["uint16", "int16"],
    "uint16": ["uint32", "int32"],
    "uint32": ["uint64", "int64"],
    "uint64": ["float*"],
    "int8": ["int16"],
    "int16": ["int32"],
    "int32": ["int64"],
    "int64": ["float*"],
    "float*": ["bfloat16", "float16"],
    "bfloat16": ["float32"],
    "float16": ["float32"],
    "float32": ["float64"],
    "float64": [],
}
NAME_WITH_X64_OFF = {"int*": "int32", "float*": "float32"}


def upper_bounds(node):
    found, todo = {node}, [node]
    while todo:
        for above in EDGES[todo.pop()]:
            if above not in found:
                found.add(above)
                todo.append(above)
    return found


def join(x, y):
    common = upper_bounds(x) & upper_bounds(y)
    (least,) = [node for node in common if common <= upper_bounds(node)]
    return least


def lattice_type(operand):
    match = re.fullmatch(r"([a-z0-9]+)\[[0-9,]*\]", operand)
    if match:
        return match.group(1)
    if operand in ("True", "False"):
        return "bool"
    return "float*" if "." in operand or "e" in operand.lower() else "int*"


def predict_promotion(a, b):
    least = join(lattice_type(a), lattice_type(b))
    return NAME_WITH_X64_OFF.get(least, least)
