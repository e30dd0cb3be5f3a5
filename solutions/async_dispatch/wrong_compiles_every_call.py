"""Compiles on every call: jit keeps what it compiled for a length, so a later call on the same length only
dispatches."""
# expect: wrong_answer
# pitfall: Expecting every call to compile

WAITING = {"block", "float", "asarray", "print"}


def timed_intervals(script):
    compiled = set()
    opened = []
    called_in = {}
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
                if True:
                    opened[now].add(f"compile {name}")
            compiled.add(length)
        elif op in WAITING:
            for name in args:
                if now >= 0 and called_in[name] == now:
                    opened[now].add(f"compute {name}")
    return [sorted(words) for words in opened[:-1]]
