"""Thinks the cache directory is read only by a process that starts with it: within one process,
a function defined again with the same name and body compiles again. JAX looks the key up on
every compile, so the new definition loads the executable its predecessor wrote."""
# expect: wrong_answer
# pitfall: The disk key is the program, not the Python object.

COMPILE_SECONDS = 0.05  # every program of these scripts compiles in well under a second


def predict_cache(settings, steps):
    threshold = settings["min_compile_time_secs"]
    on_disk = set()  # (name, body, input type): the cache directory, shared by every process
    current = {}  # name -> the number of its latest definition, in this process
    bodies = {}  # definition number -> body
    in_memory = set()  # (definition number, input type): executables this process holds
    written_here = set()  # keys this process wrote itself
    outcomes = []
    for step in steps:
        if step[0] == "restart":
            threshold = step[1]["min_compile_time_secs"]
            current, in_memory, written_here = {}, set(), set()
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
            if key in on_disk and key not in written_here:
                outcomes.append("disk")
            elif key in on_disk:
                outcomes.append("compile")
            elif threshold <= COMPILE_SECONDS:
                on_disk.add(key)
                written_here.add(key)
                outcomes.append("compile+save")
            else:
                outcomes.append("compile")
    return outcomes
