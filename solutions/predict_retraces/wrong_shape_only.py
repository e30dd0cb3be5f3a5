"""Keys calls by shape alone: int8[3] and float32[3] are different signatures, each traced."""
# expect: wrong_answer
# pitfall: Counting shapes only

import re

ARRAY = re.compile(r"^([a-z0-9]+)\[([0-9,]*)\]$")


def predict_retraces(calls):
    shapes = set()
    for call in calls:
        match = ARRAY.match(call)
        shapes.add(tuple(int(n) for n in match.group(2).split(",") if n) if match else ())
    return len(shapes)
