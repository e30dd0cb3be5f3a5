"""Reference solution: two caches walked in step order, jit's in memory per function object and the directory on disk.

A jitted function first looks in its own in-memory cache, which belongs to that function object and is keyed
by the input type: a call seen before runs the executable it holds, and a new definition or a restart starts
with an empty one. On a miss, JAX traces and lowers the function and looks the program up in the persistent
cache, whose key hashes what was lowered: the module's name (jit_ followed by the function's __name__, so
every lambda is jit__lambda), its operations and constants, and the input type, together with settings that
never change here. So the same code under the same name is found again on disk even in a new process, while
another body, another name or another input type is not. The threshold min_compile_time_secs only decides
whether a fresh compile is written: 0 writes every one, and 60 s writes none, since these programs compile in
milliseconds; reads happen whatever it is. The reference keeps those three sets and answers without tracing or
running anything.
"""

COMPILE_SECONDS = 0.05  # every program of these scripts compiles in well under a second


def predict_cache(settings, steps):
    threshold = settings["min_compile_time_secs"]
    on_disk = set()  # (name, body, input type): the cache directory, shared by every process
    current = {}  # name -> the number of its latest definition, in this process
    bodies = {}  # definition number -> body
    in_memory = set()  # (definition number, input type): executables this process holds
    outcomes = []
    for step in steps:
        if step[0] == "restart":
            threshold = step[1]["min_compile_time_secs"]
            current, in_memory = {}, set()
        elif step[0] == "def":
            _, name, body = step
            current[name] = len(bodies)
            bodies[len(bodies)] = body
        else:
            _, name, input_type = step
            definition = current[name]
            if (definition, input_type) in in_memory:
                outcomes.append("memory")
                continue
            in_memory.add((definition, input_type))
            key = (name, bodies[definition], input_type)
            if key in on_disk:
                outcomes.append("disk")
            elif threshold <= COMPILE_SECONDS:
                on_disk.add(key)
                outcomes.append("compile+save")
            else:
                outcomes.append("compile")
    return outcomes
