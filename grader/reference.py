"""The reference solution, loaded into the trusted harness, with a memory of expected values.

The same input always gets the same expected value, so the harness remembers what the
reference returned for each input and does not recompute (nor recompile) it when a test meets
that input again: in a regrade (the same source meets the same examples), in the tests that
are not properties, and wherever drawn examples repeat. The memory lives in this trusted
process only; a submission never sees it. Inputs it cannot key exactly (handles of sandboxed
objects, say) are never remembered. ``remembered`` gives a test's own helpers the same memory.

What is remembered also goes to disk (``AnswerStore``), so that a worker restarted, or another
worker of the same checkout, does not compute it again. An entry there is keyed by the text of
what computed it (the reference solution's, or the hidden tests' for a helper), the input, and
the versions of Python, NumPy, JAX and jaxlib with the XLA flags and devices: a changed problem
or a changed JAX never reads an old answer. Each entry is signed with a key derived from the
grading secret and read only when its signature holds, so a file put there by anyone else is
never unpickled. Only this trusted process writes it; the values are the harness's own
computations from trusted code, never anything a sandbox returned.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import hmac
import importlib.util
import os
import pickle
import sqlite3
import sys
import threading
import time
import types
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

import jax
import numpy as np

from grader.cpu_stages import REFERENCE_STAGE, stage
from grader.portable_function import PortableFunction
from grader.problem import REPO_ROOT, Problem, ReferenceSolutionError
from grader.seeding import grading_secret
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
# The reference modules this process imported, by problem and the text of the reference file.
_modules: dict[tuple[str, str], types.ModuleType] = {}
CONTENT_ATTRIBUTE = "__jaxjudge_content__"


def load_reference(problem: Problem) -> types.ModuleType:
    """The problem's reference solution, imported into the harness (it is trusted).

    Imported once per process and text of the file: a module-level ``jax.jit`` keeps its
    executables from one grading to the next, instead of tracing and compiling them again at
    every Submit (a changed file is imported afresh). The module records the hash of its file's
    text, by which its answers are keyed on disk.
    """
    path = problem.reference_solution
    if not path.is_file():
        raise ReferenceSolutionError(f"{problem.slug}: no reference solution at {path}")
    text = path.read_bytes()
    content = hashlib.sha256(text).hexdigest()
    key = (problem.slug, content)
    if key not in _modules:
        spec = importlib.util.spec_from_file_location(f"jaxjudge_reference_{problem.slug}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        setattr(module, CONTENT_ATTRIBUTE, content)
        for stale in [known for known in _modules if known[0] == problem.slug]:
            del _modules[stale]
        _modules[key] = module
    return _modules[key]


def loaded_references() -> list[str]:
    """The problems whose reference this process has imported (and keeps), by slug."""
    return sorted(slug for slug, _ in _modules)


class ReferenceSolution:
    """What tests see as ``reference``: the module's functions, answering from the cache."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module
        content = getattr(module, CONTENT_ATTRIBUTE, None)
        if content is not None:  # loaded by ``load_reference``: its answers may go to disk
            self._identity: Hashable = ("reference", module.__name__, content)
        else:
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
        with stage(REFERENCE_STAGE, time.thread_time):  # a thread of its own: its seconds only
            answer = function(*args, **kwargs)
        _keep(key, answer)
    except Exception:
        return
    _unasked[key] = identity


def _keep(key: Hashable, answer: Any) -> None:
    if len(_expected) >= MAX_CACHED_RESULTS:
        _expected.clear()
    _expected[key] = answer
    store = answer_store()
    if store is not None:
        store.put(key, answer)


def _answer(identity: Hashable, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    key = input_key((args, sorted(kwargs.items())))
    if key is None:
        return function(*args, **kwargs)
    key = (identity, key)
    anticipated_by = _unasked.pop(key, None)
    if anticipated_by is not None:
        _anticipations[anticipated_by][1] += 1
    if key not in _expected:
        store = answer_store()
        found, stored = store.get(key) if store is not None else (False, None)
        if found:
            _expected[key] = stored
        else:
            with stage(REFERENCE_STAGE):
                answer = function(*args, **kwargs)
            _keep(key, answer)
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
        # One not named by its file's text is this process's only: its answers never go to disk.
        return ("reference" if _durable((value._identity,)) else TRANSIENT, value._identity)
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


# The answers on disk: at most this many entries (the oldest go first), none over this size:
# 800 MB at the very worst, about 45 MB at the size answers have (855 bytes on average over
# the problem set; the few larger ones, big arrays, stay in the process's memory).
MAX_STORED_ANSWERS = 50_000
MAX_STORED_ANSWER_BYTES = 16 << 10
STORE_VARIABLE = "JAXJUDGE_REFERENCE_CACHE_DIR"


class AnswerStore:
    """Remembered answers on disk, shared by the processes of one checkout (SQLite, one file).

    Only answers whose identity is durable go there: a reference loaded by ``load_reference``
    (keyed by its file's text) and ``remembered`` helpers (keyed by their test file's text);
    every key also holds ``environment()``. Writes wait in memory and go in one transaction at
    the end of a grading (``flush``): a commit per answer would cost more than many answers.
    """

    def __init__(self, directory: Path, secret: bytes) -> None:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = directory / "answers.sqlite3"
        self._signing_key = hmac.new(secret, b"jaxjudge reference answers", hashlib.sha256).digest()
        self._environment = repr(environment())
        self._lock = threading.Lock()
        self._pending: dict[str, bytes] = {}
        self._connection = sqlite3.connect(self.path, timeout=10, check_same_thread=False, isolation_level=None)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value BLOB, mac BLOB)")

    def digest(self, key: Hashable) -> str | None:
        """The entry's name on disk, or None where the key's identity is not durable."""
        if not (isinstance(key, tuple) and key and _durable(key[0])) or _holds_transient(key):
            return None
        return hashlib.sha256(repr((self._environment, key)).encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: Hashable) -> tuple[bool, Any]:
        """(True, the answer) if the disk holds one for ``key`` with a valid signature, else (False, None)."""
        digest = self.digest(key)
        if digest is None:
            return False, None
        with self._lock:
            value = self._pending.get(digest)
            if value is None:
                try:
                    row = self._connection.execute("SELECT value, mac FROM answers WHERE key = ?", (digest,)).fetchone()
                except sqlite3.Error:
                    return False, None
                if row is None or not hmac.compare_digest(bytes(row[1]), self._sign(digest, bytes(row[0]))):
                    return False, None
                value = bytes(row[0])
        try:
            return True, pickle.loads(value)
        except Exception:  # an entry this version cannot read back: computed again
            return False, None

    def put(self, key: Hashable, answer: Any) -> None:
        """Keep ``answer`` for the next ``flush``; answers that cannot be pickled, or are large, are not kept."""
        digest = self.digest(key)
        if digest is None:
            return
        try:
            value = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # compiled executables, sandboxed handles: this process's memory only
            return
        if len(value) <= MAX_STORED_ANSWER_BYTES:
            with self._lock:
                self._pending[digest] = value

    def flush(self) -> None:
        """Write what waits, in one transaction, and keep the store within ``MAX_STORED_ANSWERS``."""
        with self._lock:
            pending, self._pending = self._pending, {}
            if not pending:
                return
            rows = [(digest, value, self._sign(digest, value)) for digest, value in pending.items()]
            try:
                with self._connection:
                    self._connection.execute("BEGIN")
                    self._connection.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", rows)
                    self._connection.execute(
                        "DELETE FROM answers WHERE rowid <= (SELECT max(rowid) FROM answers) - ?",
                        (MAX_STORED_ANSWERS,),
                    )
            except sqlite3.Error:
                return  # a locked or full disk: these answers stay in this process's memory

    def _sign(self, digest: str, value: bytes) -> bytes:
        return hmac.new(self._signing_key, digest.encode() + b"\0" + value, hashlib.sha256).digest()


def _durable(identity: Any) -> bool:
    """Whether answers under ``identity`` are named by the text of what computes them: a
    ``remembered`` helper, or a function (or composition) of a reference from ``load_reference``."""
    if not isinstance(identity, tuple) or not identity:
        return False
    if identity[0] == "remembered":
        return True
    root = identity[0]
    return isinstance(root, tuple) and bool(root) and root[0] == "reference"


TRANSIENT = "reference-in-memory"


def _holds_transient(key: Any) -> bool:
    """Whether an input of ``key`` is a reference known to this process only (see ``input_key``)."""
    if not isinstance(key, tuple):
        return False
    return (bool(key) and key[0] == TRANSIENT) or any(_holds_transient(part) for part in key)


_store: list[AnswerStore | None] = []
_store_lock = threading.Lock()


def answer_store() -> AnswerStore | None:
    """This process's store of answers on disk (``JAXJUDGE_REFERENCE_CACHE_DIR``, by default
    ``.cache/reference-answers``; empty: none), or None where there is none."""
    with _store_lock:
        if not _store:
            directory = os.environ.get(STORE_VARIABLE, str(REPO_ROOT / ".cache" / "reference-answers"))
            try:
                _store.append(AnswerStore(Path(directory), grading_secret()) if directory else None)
            except (OSError, sqlite3.Error):
                _store.append(None)  # a disk the harness cannot write: answers stay in memory
        return _store[0]


def flush_answers() -> None:
    """Write the answers of the grading just done to disk (see ``AnswerStore.flush``)."""
    store = answer_store()
    if store is not None:
        store.flush()


def forget_store() -> None:
    """Close this process's store; the next answer opens it again (for a new directory, say)."""
    with _store_lock:
        if _store and _store[0] is not None:
            _store[0].flush()
            _store[0]._connection.close()
        _store.clear()


@functools.cache
def environment() -> tuple[Any, ...]:
    """What, besides the problem and the input, an answer computed here depends on."""
    import jaxlib

    devices = tuple(sorted((device.platform, device.device_kind) for device in jax.devices()))
    return (
        sys.version_info[:2],
        np.__version__,
        jax.__version__,
        jaxlib.__version__,
        os.environ.get("XLA_FLAGS", ""),
        bool(jax.config.jax_enable_x64),  # type: ignore[attr-defined]
        devices,
    )
