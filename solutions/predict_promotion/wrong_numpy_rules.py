"""Uses NumPy's promotion: Python floats and ints taken as float64 and int64, the result then
narrowed to 32 bits. float16 + 1.5 becomes float32 and int8 + 3 int32, where JAX's weak types
keep float16 and int8."""
# expect: wrong_answer
# pitfall: Using NumPy's rules.

import ml_dtypes
import numpy as np

PYTHON_SCALARS = {"True": np.bool_, "False": np.bool_}
NARROWED = {"float64": "float32", "int64": "int32", "uint64": "uint32"}


def dtype(operand):
    if operand.endswith("]"):
        name = operand.split("[")[0]
        return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)
    if operand in PYTHON_SCALARS:
        return np.dtype(PYTHON_SCALARS[operand])
    return np.dtype(np.float64 if "." in operand else np.int64)


def predict_promotion(a, b):
    try:
        name = np.result_type(dtype(a), dtype(b)).name
    except TypeError:  # NumPy has no rule for bfloat16 with float16 or wide ints
        name = "float32"
    return NARROWED.get(name, name)
