"""Takes only block_until_ready for a wait: float(y), np.asarray(y) and print(y) need the value on the host, so
they wait for the computation as well."""
# expect: wrong_answer
# pitfall: Thinking only `block_until_ready` waits

WAITING = {"block"}


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
                if now >= 0 and called_in[name] == now:
                    opened[now].add(f"compute {name}")
    return [sorted(words) for words in opened[:-1]]
