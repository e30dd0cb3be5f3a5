"""Answers the operand dtype with the most bytes (on a tie, a float before an integer): bfloat16 +
float16 and uint8 + int8 need a third, wider type, and a Python scalar is no wider than the array
it meets."""
# expect: wrong_answer
# pitfall: Taking the larger dtype.

ITEMSIZE = {
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
    "uint32": 4,
    "bool": 1,
}


def dtype(operand):
    if operand.endswith("]"):
        return operand.split("[")[0]
    if operand in ("True", "False"):
        return "bool"
    return "float32" if "." in operand else "int32"


def predict_promotion(a, b):
    x, y = dtype(a), dtype(b)
    if ITEMSIZE[x] != ITEMSIZE[y]:
        return x if ITEMSIZE[x] > ITEMSIZE[y] else y
    return y if y.startswith(("float", "bfloat")) and not x.startswith(("float", "bfloat")) else x
