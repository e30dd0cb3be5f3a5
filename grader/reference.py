"""The reference solution, loaded into the trusted harness, with a cache of expected values.

Grading is deterministic: every grading of a problem meets the same examples, so the harness
remembers what the reference returned for each input and does not recompute (nor recompile)
it for the next submission. The cache lives in this trusted process only; a submission never
sees it. Inputs it cannot key exactly (handles of sandboxed objects, say) are never cached.
"""

from __future__ import annotations

import copy
import importlib.util
import os
import types
from collections.abc import Callable, Hashable
from typing import Any

import jax
import numpy as np

from grader.problem import Problem, ReferenceSolutionError
from grader.proxy import PortableFunction
from sandbox import protocol

MAX_CACHED_RESULTS = 20_000
_expected: dict[Hashable, Any] = {}


def load_reference(problem: Problem) -> types.ModuleType:
    """Import the problem's reference solution into the harness (it is trusted)."""
    path = problem.reference_solution
    if not path.is_file():
        raise ReferenceSolutionError(f"{problem.slug}: no reference solution at {path}")
    spec = importlib.util.spec_from_file_location(f"jaxjudge_reference_{problem.slug}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ReferenceSolution:
    """What tests see as ``reference``: the module's functions, answering from the cache."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module
        path = getattr(module, "__file__", None) or module.__name__
        self._identity = (module.__name__, path, modified(path))

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)
        if not callable(value):
            return value
        return lambda *args, **kwargs: self._call(name, value, args, kwargs)

    def _call(self, name: str, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        key = input_key((args, sorted(kwargs.items())))
        if key is None:
            return function(*args, **kwargs)
        key = (self._identity, name, key)
        if key not in _expected:
            if len(_expected) >= MAX_CACHED_RESULTS:
                _expected.clear()
            _expected[key] = function(*args, **kwargs)
        result = _expected[key]
        # Lists and dicts are copied so that no test can change what the next one receives
        # (a shallow copy where they hold what cannot be copied, compiled executables say).
        if not isinstance(result, (list, dict)):
            return result
        try:
            return copy.deepcopy(result)
        except TypeError:
            return copy.copy(result)

    def __repr__(self) -> str:
        return "reference"  # short, so that failing examples do not print the module's path


def input_key(value: Any) -> Hashable | None:
    """An exact, hashable description of a test input; None if there is none."""
    if value is None or type(value) in (bool, int, float, str):
        return (type(value).__name__, value)
    if isinstance(value, jax.Array) and not isinstance(value, jax.core.Tracer):
        array = np.asarray(value)
        return ("jax", str(array.dtype), array.shape, bool(value.weak_type), array.tobytes())
    if type(value) is np.ndarray and protocol.can_cross(value.dtype):
        return ("numpy", str(value.dtype), value.shape, value.tobytes())
    if isinstance(value, np.generic) and protocol.can_cross(np.dtype(type(value))):
        return ("numpy-scalar", type(value).__name__, value.tobytes())
    if isinstance(value, PortableFunction):
        return ("function", value.name, value.source)
    if type(value) in (tuple, list):
        keys = [input_key(item) for item in value]
        return None if any(k is None for k in keys) else (type(value).__name__, tuple(keys))
    return None


def modified(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0
