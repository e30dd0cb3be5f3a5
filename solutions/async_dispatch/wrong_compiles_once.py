"""Compiles on the very first call only: a call on a length f has not met yet compiles again, however many calls
came before."""
# expect: wrong_answer
# pitfall: Expecting one compile per function

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
                if not compiled:
                    opened[now].add(f"compile {name}")
            compiled.add(length)
        elif op in WAITING:
            for name in args:
                if now >= 0 and called_in[name] == now:
                    opened[now].add(f"compute {name}")
    return [sorted(words) for words in opened[:-1]]
