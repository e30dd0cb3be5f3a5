"""Treats a Python float as a float32 array and a Python int as an int32 array, with JAX's
table for arrays: right for int8 + 1.5 (float32), wrong for float16 + 1.5 and int8 + 3, where
the weakly typed scalar takes the array's dtype."""
# expect: wrong_answer
# pitfall: Treating a Python scalar as a `float32` or `int32` array.

import re

ARRAY = re.compile(r"^([a-z0-9]+)\[([0-9,]*)\]$")
KINDS = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint8", "uint32", "bool")
TABLE = """
float32  float32  float32  float32  float32  float32  float32  float32  float32
float32  float16  float32  float16  float16  float16  float16  float16  float16
float32  float32  bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16
float32  float16  bfloat16 int32    int32    int32    int32    int32    int32
float32  float16  bfloat16 int32    int16    int16    int16    int32    int16
float32  float16  bfloat16 int32    int16    int8     int16    int32    int8
float32  float16  bfloat16 int32    int16    int16    uint8    uint32   uint8
float32  float16  bfloat16 int32    int32    int32    uint32   uint32   uint32
float32  float16  bfloat16 int32    int16    int8     uint8    uint32   bool
"""
RESULT = {
    (row_kind, column_kind): name
    for row_kind, row in zip(KINDS, TABLE.split("\n")[1:-1], strict=True)
    for column_kind, name in zip(KINDS, row.split(), strict=True)
}


def dtype(operand):
    match = ARRAY.match(operand)
    if match:
        return match.group(1)
    if operand in ("True", "False"):
        return "bool"
    return "float32" if "." in operand else "int32"


def predict_promotion(a, b):
    return RESULT[dtype(a), dtype(b)]
