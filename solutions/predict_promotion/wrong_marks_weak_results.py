"""Predicts the right dtype but marks a weakly typed result the way jax.typeof prints it, "~float32" for
int8[3] + 1.5 or for 1 + 2.5: the answer must be the dtype's name alone, as str(result.dtype) gives it."""
# expect: wrong_answer by test_a_python_float_keeps_float16_but_makes_ints_float32
# pitfall: Naming a weak result specially.

import re

ARRAY = re.compile(r"^([a-z0-9]+)\[([0-9,]*)\]$")

# Row: the first operand's kind; column: the second's. "float" and "int" are Python floats
# and ints (weakly typed); a Python bool is the strong "bool".
KINDS = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint8", "uint32", "bool", "float", "int")
TABLE = """
float32  float32  float32  float32  float32  float32  float32  float32  float32  float32  float32
float32  float16  float32  float16  float16  float16  float16  float16  float16  float16  float16
float32  float32  bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16
float32  float16  bfloat16 int32    int32    int32    int32    int32    int32    float32  int32
float32  float16  bfloat16 int32    int16    int16    int16    int32    int16    float32  int16
float32  float16  bfloat16 int32    int16    int8     int16    int32    int8     float32  int8
float32  float16  bfloat16 int32    int16    int16    uint8    uint32   uint8    float32  uint8
float32  float16  bfloat16 int32    int32    int32    uint32   uint32   uint32   float32  uint32
float32  float16  bfloat16 int32    int16    int8     uint8    uint32   bool     float32  int32
float32  float16  bfloat16 float32  float32  float32  float32  float32  float32  float32  float32
float32  float16  bfloat16 int32    int16    int8     uint8    uint32   int32    float32  int32
"""
RESULT = {
    (row_kind, column_kind): name
    for row_kind, row in zip(KINDS, TABLE.split("\n")[1:-1], strict=True)
    for column_kind, name in zip(KINDS, row.split(), strict=True)
}


def kind(operand):
    match = ARRAY.match(operand)
    if match:
        return match.group(1)
    if operand in ("True", "False"):
        return "bool"
    return "float" if any(mark in operand for mark in ".eE") else "int"


# A result is weakly typed when a Python scalar decides it: two Python scalars, a Python float
# meeting an integer or bool array, or a Python int meeting a bool array.
WEAK_OVER = {"float": ("int", "float", "int32", "int16", "int8", "uint8", "uint32", "bool"), "int": ("int", "bool")}


def is_weak(first, second):
    return second in WEAK_OVER.get(first, ()) or first in WEAK_OVER.get(second, ())


def predict_promotion(a, b):
    name = RESULT[kind(a), kind(b)]
    # Written as jax.typeof prints it, with a ~ for a weakly typed result.
    return "~" + name if is_weak(kind(a), kind(b)) else name
