"""The reference solution, loaded into the trusted harness, with a memory of expected values.

The same input always gets the same expected value, so the harness remembers what the
reference returned for each input and does not recompute (nor recompile) it when a test meets
that input again: in a regrade (the same source meets the same examples), in the tests that
are not properties, and wherever drawn examples repeat. The memory lives in this trusted
process only; a submission never sees it. Inputs it cannot key exactly (handles of sandboxed
objects, say) are never remembered. ``remembered`` gives a test's own helpers the same memory.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import importlib.util
import os
import threading
import types
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import jax
import numpy as np

from grader.portable_function import PortableFunction
from grader.problem import Problem, ReferenceSolutionError
from sandbox import protocol

MAX_CACHED_RESULTS = 20_000
_expected: dict[Hashable, Any] = {}
MAX_TRANSFORMED = 256
_transformed: dict[Hashable, Callable[..., Any]] = {}
# Anticipated answers (see ReferenceSolution.anticipate): per function and transformations, how
# many were worked out and how many a test then asked for; the answers not asked for yet.
TRIAL_ANTICIPATIONS = 8
_anticipations: dict[Hashable, list[int]] = {}
_unasked: dict[Hashable, Hashable] = {}
Helper = TypeVar("Helper", bound=Callable[..., Any])


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
        return self.transformed(name) if callable(value) else value

    def transformed(self, name: str, *transforms: str | tuple[str, dict[str, Any]]) -> Callable[..., Any]:
        """The reference's function ``name`` under JAX transformations, innermost first, named
        as ``submission.transformed`` names them: ``reference.transformed("f", "grad", "vmap",
        "jit")(x)`` is ``jax.jit(jax.vmap(jax.grad(f)))(x)``. Its answers are remembered like
        the plain functions' (a ``jax.jit`` of ``reference.f`` written in a test would trace,
        lower and compile again at every grading)."""
        identity, kept = self._composition(name, transforms)
        return lambda *args, **kwargs: _answer(identity, kept, args, kwargs)

    def _composition(self, name: str, transforms: tuple[Any, ...]) -> tuple[Hashable, Callable[..., Any]]:
        function = getattr(self._module, name)
        if not transforms:
            return (self._identity, name), function
        specs = []
        for spec in transforms:
            transform, options = (spec, {}) if isinstance(spec, str) else (spec[0], dict(spec[1]))
            allowed = protocol.TRANSFORMS.get(transform)
            if allowed is None or transform == "make_jaxpr" or not set(options) <= allowed:
                raise ValueError(f"cannot apply {transform!r} with options {sorted(options)} to the reference")
            function = getattr(jax, transform)(function, **options)
            specs.append((transform, repr(sorted(options.items()))))
        identity = (self._identity, name, tuple(specs))
        # One function per composition, kept: JAX's caches are keyed on it, so an input of a new
        # shape compiles once in this process, however many tests and gradings meet it.
        if identity not in _transformed:
            if len(_transformed) >= MAX_TRANSFORMED:
                _transformed.clear()
            _transformed[identity] = function
        return identity, _transformed[identity]

    def anticipate(
        self, name: str, transforms: tuple[Any, ...], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Callable[[], None]:
        """Start working out, in a thread, the reference's answer to the call the submission is
        computing in the sandbox (the same function, transformations and arguments), and return
        what waits for it: a test usually asks the reference that very question next, and the
        harness would otherwise idle while the sandbox computes, then compute while it idles.

        The answer goes into the memory the test reads; an error is dropped (the test meets it
        again if it asks). Questions of a kind (a function under given transformations) that the
        tests went on to ask less than once in four, over at least ``TRIAL_ANTICIPATIONS``, are
        not anticipated again in this process.
        """
        try:
            identity, kept = self._composition(name, transforms)
        except (AttributeError, ValueError, TypeError):
            return _nothing
        key = input_key((args, sorted(kwargs.items())))
        if not callable(kept) or key is None or (identity, key) in _expected:
            return _nothing
        asked = _anticipations.setdefault(identity, [0, 0])  # [started, then asked for]
        if asked[0] >= TRIAL_ANTICIPATIONS and asked[1] * 4 < asked[0]:
            return _nothing
        asked[0] += 1
        thread = threading.Thread(target=_work_out, args=(identity, (identity, key), kept, args, kwargs), daemon=True)
        thread.start()
        return thread.join

    def __repr__(self) -> str:
        return "reference"  # short, so that failing examples do not print the module's path


def remembered(helper: Helper) -> Helper:
    """Remember what a test's helper returns, in this process, for the next gradings.

    For helpers of hidden tests whose answer depends only on their arguments: the reference's
    answers under ``jax.jit`` or a transformation, or the truth a test measures by running JAX
    itself (how many times jit really traces a list of calls, say). Without this, every
    grading traces, lowers and compiles them again, because each grading imports its test file
    afresh. Keyed by the test file's text, the helper's name and its arguments (exactly, see
    ``input_key``); arguments that cannot be keyed exactly (handles of sandboxed objects, the
    submission) are never remembered: the helper runs. Pass the ``reference`` fixture as an
    argument when the helper uses it. Only trusted values are kept: the harness's own
    computations, never what the submission returned.
    """
    path = helper.__code__.co_filename
    try:
        with open(path, "rb") as file:
            written = hashlib.sha256(file.read()).hexdigest()
    except OSError:
        return helper  # not from a file: nothing to tie its answers to
    identity = ("remembered", written, helper.__qualname__)

    @functools.wraps(helper)
    def answering(*args: Any, **kwargs: Any) -> Any:
        return _answer(identity, helper, args, kwargs)

    return answering  # type: ignore[return-value]


def _nothing() -> None:
    return None


def _work_out(
    identity: Hashable, key: Hashable, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """An anticipated answer, into the memory (in a thread of its own: see ``anticipate``)."""
    try:
        _keep(key, function(*args, **kwargs))
    except Exception:
        return
    _unasked[key] = identity


def _keep(key: Hashable, answer: Any) -> None:
    if len(_expected) >= MAX_CACHED_RESULTS:
        _expected.clear()
    _expected[key] = answer


def _answer(identity: Hashable, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    key = input_key((args, sorted(kwargs.items())))
    if key is None:
        return function(*args, **kwargs)
    key = (identity, key)
    anticipated_by = _unasked.pop(key, None)
    if anticipated_by is not None:
        _anticipations[anticipated_by][1] += 1
    if key not in _expected:
        _keep(key, function(*args, **kwargs))
    result = _expected[key]
    # Lists and dicts are copied so that no test can change what the next one receives
    # (a shallow copy where they hold what cannot be copied, compiled executables say).
    if not isinstance(result, (list, dict)):
        return result
    try:
        return copy.deepcopy(result)
    except TypeError:
        return copy.copy(result)


def input_key(value: Any) -> Hashable | None:
    """An exact, hashable description of a test input; None if there is none."""
    if value is None or type(value) in (bool, int, float, str):
        return (type(value).__name__, repr(value))  # repr: -0.0 is not 0.0
    if isinstance(value, jax.Array) and not isinstance(value, jax.core.Tracer):
        array = np.asarray(value)
        return ("jax", str(array.dtype), array.shape, bool(value.weak_type), array.tobytes())
    if type(value) is np.ndarray and protocol.can_cross(value.dtype):
        return ("numpy", str(value.dtype), value.shape, value.tobytes())
    if isinstance(value, np.generic) and protocol.can_cross(np.dtype(type(value))):
        return ("numpy-scalar", type(value).__name__, value.tobytes())
    if isinstance(value, PortableFunction):
        return ("function", value.name, value.source)
    if isinstance(value, ReferenceSolution):
        return ("reference", value._identity)
    if isinstance(value, np.dtype):
        return ("dtype", str(value))
    if type(value) is jax.ShapeDtypeStruct and value.sharding is None:
        return ("spec", tuple(value.shape), str(value.dtype), bool(value.weak_type))
    if type(value) in (tuple, list):
        keys = [input_key(item) for item in value]
        return None if any(k is None for k in keys) else (type(value).__name__, tuple(keys))
    if type(value) is dict:
        items = [(input_key(name), input_key(item)) for name, item in value.items()]
        if any(k is None for pair in items for k in pair):
            return None
        return ("dict", tuple(sorted(items, key=repr)))
    return None


def modified(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0
