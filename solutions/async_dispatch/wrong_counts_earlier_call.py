"""Counts the computation of a result called before the interval began, because the interval waits for it: only
what was left of it runs after the clock started, maybe nothing."""
# expect: wrong_answer
# pitfall: Starting the clock after the call

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
                if length not in compiled:
                    opened[now].add(f"compile {name}")
            compiled.add(length)
        elif op in WAITING:
            for name in args:
                if now >= 0 and called_in[name] <= now:
                    opened[now].add(f"compute {name}")
    return [sorted(words) for words in opened[:-1]]
