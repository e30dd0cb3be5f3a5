"""Reference solution: one pass over the script, keeping the lengths compiled and each call's interval.

A jitted call traces and compiles in the calling thread when it meets a length for the first time in the
script (a warm-up call before the first clock counts), then queues the computation and returns at once, so
the interval holding the call always pays for its dispatch and, on a new length, for its compile. The
computation runs in the background and is only sure to have ended once the script waits for the result:
jax.block_until_ready of the result or of a tuple holding it, or a conversion that needs the value on the
host (float, np.asarray, print), while reading .shape needs only the abstract value and waits for nothing.
The whole computation of a result therefore lies inside an interval exactly when that interval holds both
its call and a later wait for it; a result waited for in a later interval, or never, gets "compute" nowhere.
"""

WAITING = {"block", "float", "asarray", "print"}


def timed_intervals(script):
    compiled = set()  # the lengths f has been traced and compiled for
    opened = []  # one set of words per clock step: the interval that clock opens
    called_in = {}  # result name -> index of the interval its call is in (-1 before the first clock)
    for step in script:
        op, *args = step.split()
        now = len(opened) - 1
        if op == "clock":
            opened.append(set())
        elif op == "call":
            name, length = args
            called_in[name] = now
            if now >= 0:
                opened[now].add(f"dispatch {name}")
                if length not in compiled:
                    opened[now].add(f"compile {name}")
            compiled.add(length)
        elif op in WAITING:
            for name in args:
                if now >= 0 and called_in[name] == now:
                    opened[now].add(f"compute {name}")
    return [sorted(words) for words in opened[:-1]]
