"""Takes a Python bool for a weakly typed int, like a Python int: bool[3] + True is a strong
bool in JAX (a Python bool is never weak), not int32, and True + True is bool too."""
# expect: wrong_answer
# pitfall: Calling a Python bool weak.

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
        return "int"
    return "float" if any(mark in operand for mark in ".eE") else "int"


def predict_promotion(a, b):
    return RESULT[kind(a), kind(b)]
