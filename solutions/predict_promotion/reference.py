"""Reference solution: each operand reduced to one of eleven kinds, and the result read from a table of kind pairs.

JAX promotes types on a lattice of its own, not NumPy's: the result of a binary operation is the least upper
bound of the two operand types, and 64-bit mode being off, a 64-bit result is held in its 32-bit type. Python
ints and floats are weakly typed: they sit at the bottom of their branch of the lattice, so they take the type
of an array of their own kind (float16 + 1.5 is float16, int8 + 3 is int8), while a weak float meeting an
integer or bool array gives the default float32 and a weak int meeting a bool array gives int32. A Python bool
is not weak: it is the strong bool type. Since the answer depends only on the two kinds (nine array dtypes, a
weak int and a weak float), the reference parses each description into its kind and reads the name from an
eleven by eleven table taken from JAX's promotion table, with no shape and no JAX call involved.
"""

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


def predict_promotion(a, b):
    return RESULT[kind(a), kind(b)]
