"""Takes a wait for one result as a wait for every result of the interval: blocking one leaf of a pytree leaves
the other leaves' computations running."""
# expect: wrong_answer
# pitfall: Blocking one leaf of a pytree

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
            for name in [n for n, at in called_in.items() if at == now]:
                if now >= 0 and called_in[name] == now:
                    opened[now].add(f"compute {name}")
    return [sorted(words) for words in opened[:-1]]
