"""Models what JAX keeps instead of the rules' names for it: the cache directory as the set of
file names JAX would write (jit_ and the function's __name__ with what is not a letter or a
digit made "_", then the program's body and input type), and each jitted function as an object
holding its own executables, forgotten when the process restarts."""

import re


class Jitted:
    def __init__(self, module, body):
        self.module, self.body, self.executables = module, body, set()


def predict_cache(settings, steps):
    writes = settings["min_compile_time_secs"] <= 0.0  # every program here compiles in under a second
    directory, functions, answer = set(), {}, []
    for kind, *rest in steps:
        if kind == "restart":
            functions = {}
            writes = rest[0]["min_compile_time_secs"] <= 0.0
        elif kind == "def":
            name, body = rest
            functions[name] = Jitted("jit_" + re.sub(r"\W", "_", name), body)
        else:
            name, input_type = rest
            function = functions[name]
            if input_type in function.executables:
                answer.append("memory")
                continue
            function.executables.add(input_type)
            entry = f"{function.module}|{function.body}|{input_type}"
            if entry in directory:
                answer.append("disk")
            elif writes:
                directory.add(entry)
                answer.append("compile+save")
            else:
                answer.append("compile")
    return answer
