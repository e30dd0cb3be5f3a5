"""The truths of ``persistent_cache`` do not depend on how fast the grader compiles.

Its hidden tests run each script under JAX and read off what happened. JAX writes a compile to
the cache directory only if it took at least the process's ``min_compile_time_secs``, so a
threshold that a compile could reach on a slow or loaded machine would turn a "compile" into a
"compile+save" there, and reject a right prediction. Here every compile is made really slow and
the truths must come out as they do at full speed.
"""

from __future__ import annotations

import time
import types
from collections.abc import Iterator
from typing import Any

import jax._src.compiler as jax_compiler
import pytest

from grader.problem import load_problem

# Longer than JAX's default threshold of 1 s, the largest one below "never" that the problem
# has ever asked about, and far below the 60 s that no compile here can reach.
SLOW_COMPILE_SECONDS = 1.2

Script = tuple[dict[str, float], list[tuple[Any, ...]]]


def hidden_tests() -> types.ModuleType:
    """The problem's hidden tests as a module built from text: ``remembered`` keeps nothing for it."""
    module = types.ModuleType("hidden_persistent_cache")
    source = load_problem("persistent_cache").hidden_tests
    exec(compile(source, "<hidden tests of persistent_cache>", "exec"), module.__dict__)
    return module


def aimed_scripts(hidden: types.ModuleType) -> list[Script]:
    """The scripts the hidden tests aim at each rule, caught on their way to ``check``."""
    scripts: list[Script] = []
    vars(hidden)["check"] = lambda submission, settings, steps: scripts.append((settings, steps))
    for name, test in vars(hidden).items():
        if name.startswith("test_") and callable(test) and not hasattr(test, "hypothesis"):
            test(None)
    return scripts


@pytest.fixture(scope="module")
def hidden() -> Iterator[types.ModuleType]:
    yield hidden_tests()


@pytest.mark.slow
def test_slow_compiles_change_no_truth(hidden: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    # The undecorated helper: a truth must be computed here, never recalled from another run.
    what_jax_does = getattr(hidden.what_jax_does, "__wrapped__", hidden.what_jax_does)
    scripts = aimed_scripts(hidden)
    assert scripts, "the hidden tests aim no script at the rules"
    at_full_speed = [what_jax_does(*script) for script in scripts]

    compile_for_real = jax_compiler.backend_compile_and_load
    slowed = []

    def compile_slowly(*args: Any, **kwargs: Any) -> Any:
        slowed.append(1)
        time.sleep(SLOW_COMPILE_SECONDS)  # counted in the compile time JAX compares to the threshold
        return compile_for_real(*args, **kwargs)

    # JAX looks this name up in its module each time it compiles, timing the call.
    monkeypatch.setattr(jax_compiler, "backend_compile_and_load", compile_slowly)
    slowly = [what_jax_does(*script) for script in scripts]

    compiles = sum(truth.count("compile") + truth.count("compile+save") for truth in at_full_speed)
    assert len(slowed) == compiles, "the slow-down did not reach every compile of the scripts"
    for script, fast, slow in zip(scripts, at_full_speed, slowly, strict=True):
        assert slow == fast, f"{script!r}: {fast!r} at full speed, {slow!r} with slow compiles"
