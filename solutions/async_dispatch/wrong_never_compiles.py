"""Leaves compiling out: the first call on a length traces and compiles f before it dispatches, and that time
lands in the interval holding the call."""
# expect: wrong_answer
# pitfall: Timing the first call

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
                if False:
                    opened[now].add(f"compile {name}")
            compiled.add(length)
        elif op in WAITING:
            for name in args:
                if now >= 0 and called_in[name] == now:
                    opened[now].add(f"compute {name}")
    return [sorted(words) for words in opened[:-1]]
