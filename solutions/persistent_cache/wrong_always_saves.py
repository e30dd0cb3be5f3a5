"""Ignores the compile-time threshold: every compile is written, with 60 s as with 0.
Programs that compile faster than the threshold are not written, so a later definition or
process compiles them again."""
# expect: wrong_answer


def predict_cache(settings, steps):
    del settings  # the threshold, taken to change nothing
    on_disk = set()  # (name, body, input type): the cache directory, shared by every process
    current = {}  # name -> the number of its latest definition, in this process
    bodies = {}  # definition number -> body
    in_memory = set()  # (definition number, input type): executables this process holds
    outcomes = []
    for step in steps:
        if step[0] == "restart":
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
            else:
                on_disk.add(key)
                outcomes.append("compile+save")
    return outcomes
