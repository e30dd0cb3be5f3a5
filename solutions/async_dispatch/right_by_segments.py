"""Cuts the script at its clock steps first, then reads each interval on its own, carrying only the
lengths seen so far."""

LENGTH_OF_CALL = 2


def timed_intervals(script):
    pieces = [[]]
    for step in script:
        if step == "clock":
            pieces.append([])
        else:
            pieces[-1].append(step.split())
    seen = {words[LENGTH_OF_CALL] for words in pieces[0] if words[0] == "call"}  # the warm-up
    answer = []
    for piece in pieces[1:-1]:  # the steps between two clocks
        words, here = [], set()
        for op, *args in piece:
            if op == "call":
                here.add(args[0])
                words.append(f"dispatch {args[0]}")
                if args[1] not in seen:
                    seen.add(args[1])
                    words.append(f"compile {args[0]}")
            elif op in ("block", "float", "asarray", "print"):
                words += [f"compute {name}" for name in args if name in here]
        answer.append(list(dict.fromkeys(words)))
    return answer
