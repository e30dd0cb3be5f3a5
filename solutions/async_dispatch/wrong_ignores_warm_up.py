"""Forgets the warm-up: a call before the first clock fills jit's cache too, so the same length timed afterwards
does not compile."""
# expect: wrong_answer
# pitfall: Forgetting the warm-up

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
            if now >= 0:
                compiled.add(length)
        elif op in WAITING:
            for name in args:
                if now >= 0 and called_in[name] == now:
                    opened[now].add(f"compute {name}")
    return [sorted(words) for words in opened[:-1]]
