"""Runs the calls through a real jitted function to learn which ones compile: the right words, but found by
tracing and compiling, not predicted from the script."""
# expect: wrong_answer
# pitfall: Running the script

import jax
import jax.numpy as jnp
import numpy as np


def timed_intervals(script):
    traces = []

    @jax.jit
    def f(x):
        traces.append(1)  # runs only while jit traces, before it compiles
        return jnp.sum(jnp.sin(x) ** 2)

    opened, results = [], {}
    for step in script:
        op, *args = step.split()
        if op == "clock":
            opened.append(set())
            continue
        if op == "call":
            name, length = args
            before = len(traces)
            results[name] = (f(np.ones(int(length), np.float32)), len(opened) - 1)
            if opened:
                opened[-1].add(f"dispatch {name}")
                if len(traces) > before:
                    opened[-1].add(f"compile {name}")
        elif op != "shape":
            for name in args:
                value, called_at = results[name]
                jax.block_until_ready(value)
                if opened and called_at == len(opened) - 1:
                    opened[-1].add(f"compute {name}")
    return [sorted(words) for words in opened[:-1]]
