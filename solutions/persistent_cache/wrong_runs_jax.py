"""Runs the script for real in a cache directory of its own, and reads each call's outcome off
what JAX did (a trace noted by the function, JAX's cache-hit event, the files written): the
right answers, but found by tracing and compiling, not predicted from the script."""
# expect: wrong_answer
# pitfall: Running JAX.

import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.compilation_cache import compilation_cache

BODIES = {"sin(x) * 2": (jnp.sin, 2), "sin(x) * 3": (jnp.sin, 3), "cos(x) * 2": (jnp.cos, 2)}


def make(name, body, traces):
    op, factor = BODIES[body]

    def function(x):
        traces.append(1)
        return op(x) * factor

    function.__name__ = function.__qualname__ = name
    return jax.jit(function)


def predict_cache(settings, steps):
    directory = tempfile.mkdtemp()
    compilation_cache.set_cache_dir(directory)
    compilation_cache.reset_cache()  # a cache already opened keeps its old directory otherwise
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", settings["min_compile_time_secs"])
    reads, traces, functions, answer = [], [], {}, []
    jax.monitoring.register_event_listener(
        lambda event, **_: reads.append(1) if event == "/jax/compilation_cache/cache_hits" else None
    )
    for step in steps:
        if step[0] == "restart":
            jax.clear_caches()
            functions = {}
            jax.config.update("jax_persistent_cache_min_compile_time_secs", step[1]["min_compile_time_secs"])
        elif step[0] == "def":
            functions[step[1]] = make(step[1], step[2], traces)
        else:
            dtype, dims = step[2].removesuffix("]").split("[")
            x = np.ones(tuple(int(n) for n in dims.split(",") if n), dtype=jnp.dtype(dtype))
            files, traced, read = len(os.listdir(directory)), len(traces), len(reads)
            functions[step[1]](x)
            if len(traces) == traced:
                answer.append("memory")
            elif len(reads) > read:
                answer.append("disk")
            else:
                answer.append("compile+save" if len(os.listdir(directory)) > files else "compile")
    return answer
