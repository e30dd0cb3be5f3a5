"""Thinks the key is the function's name and input types, as a signature: a function redefined
with another constant (sin(x) * 3 for sin(x) * 2) would load the old executable. The key
hashes the whole lowered program, constants included."""
# expect: wrong_answer
# pitfall: So are the body and the input type.

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
            key = (name, input_type)
            if key in on_disk:
                outcomes.append("disk")
            elif threshold <= COMPILE_SECONDS:
                on_disk.add(key)
                outcomes.append("compile+save")
            else:
                outcomes.append("compile")
    return outcomes
