"""Answers that every call traces: jit's cache makes a repeated signature free."""
# expect: wrong_answer
# pitfall: Counting calls instead of keys


def predict_retraces(calls):
    return len(calls)
