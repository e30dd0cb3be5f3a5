"""The adversarial suite: hostile submissions, the verdict each must get, and proof of no leak.

Most cases answer the canary problem, whose secret lives in three places a submission might
look for it: the hidden tests, the reference solution and the expected value the harness
computes. A submission passes only by returning the secret, so any leak shows up as
``accepted``. After every hostile submission the same harness grades a correct one, to show
that nothing the hostile one did survived it or harmed the worker.
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET

import pytest

from grader.harness import grade_submission
from grader.problem import REPO_ROOT, Problem, load_problem
from grader.source import SubmissionSource
from grader.verdicts import Verdict
from sandbox.host.backends import BwrapBackend
from sandbox.host.pool import SandboxPool
from tests.conftest import sandbox_processes

pytestmark = pytest.mark.slow  # some 60 submissions, each graded in sandboxes of its own and from a pool

SECRET = "canary-5e1f0a7b9c"
FOUND = "canary-5"  # what the searches look for: a prefix of the secret only

CANARY_HIDDEN_TESTS = f"""
EXPECTED_HERE = "{SECRET}"


def test_answer(submission, reference):
    assert submission.answer() == reference.answer(), "that is not the secret"
"""

CANARY_REFERENCE = f"""
SECRET = "{SECRET}"


def answer():
    return SECRET
"""

CORRECT = f"def answer():\n    return {SECRET!r}\n"

CANARY_PROBLEM = {"hidden_tests": CANARY_HIDDEN_TESTS, "reference": CANARY_REFERENCE, "memory_limit_mb": 512}
# Submissions that must run out of time get a short limit, which keeps the suite fast. Every
# other one gets a limit far above what it needs on two busy cores (a fork bomb there takes
# seconds to reach the process limit, about one on an idle machine), so that no verdict
# depends on how busy the machine is. A call may take 20 s of it at most (Problem.sandbox_limits).
SHORT_TIME_LIMIT_S = 3
WIDE_TIME_LIMIT_S = 60

WA, RE, TLE, MLE, OLE, TAMPERED = (
    Verdict.WRONG_ANSWER,
    Verdict.RUNTIME_ERROR,
    Verdict.TIME_LIMIT_EXCEEDED,
    Verdict.MEMORY_LIMIT_EXCEEDED,
    Verdict.OUTPUT_LIMIT_EXCEEDED,
    Verdict.INTEGRITY_VIOLATION,
)

# Every path a submission might try for hidden data, from inside the sandbox.
ROOTS = [str(REPO_ROOT), "/tmp", "/opt", "/root", "/home", "/var", "/etc", "/run", "/srv", "/mnt"]

CANARY_CASES: dict[str, tuple[str, Verdict]] = {
    # -- ending the process instead of answering ----------------------------------------------
    "sys_exit_at_import": ("import sys\nsys.exit(0)\n", RE),
    "sys_exit_in_call": ("import sys\ndef answer():\n    sys.exit(0)\n", RE),
    "os_exit_in_call": ("import os\ndef answer():\n    os._exit(0)\n", RE),
    "self_kill": ("import os, signal\ndef answer():\n    os.kill(os.getpid(), signal.SIGKILL)\n", RE),
    "self_sent_sigxcpu": ("import os, signal\ndef answer():\n    os.kill(os.getpid(), signal.SIGXCPU)\n", RE),
    "kill_every_process": ("import os, signal\ndef answer():\n    os.kill(-1, signal.SIGKILL)\n", RE),
    "ctypes_segfault": ("import ctypes\ndef answer():\n    ctypes.string_at(0)\n", RE),
    "ctypes_libc_exit": ("import ctypes\ndef answer():\n    ctypes.CDLL(None).exit(0)\n", RE),
    # -- forging a verdict ------------------------------------------------------------------
    "fake_report_on_stdout": (
        """
        import json, sys
        print(json.dumps({"schema": 1, "verdict": "accepted", "score": 100}))
        sys.stderr.write("==== 1 passed in 0.01s ====\\n")
        def answer():
            print("PASSED")
            return "accepted"
        """,
        WA,
    ),
    "forged_result_files": (
        """
        import os
        def answer():
            for folder in ["/tmp", "/opt/jaxjudge", "/opt/jaxjudge/sandbox", ROOTS[0]]:
                try:
                    open(os.path.join(folder, "report.json"), "w").write('{"verdict": "accepted"}')
                except OSError:
                    pass
            return "accepted"
        """,
        WA,
    ),
    "pickle_on_the_channel": (
        """
        import os, pickle, struct
        def answer():
            payload = pickle.dumps({"op": "ok", "value": "accepted"})
            for fd in range(3, 12):
                try:
                    os.write(fd, struct.pack(">I", len(payload)) + payload)
                except OSError:
                    pass
            return "nothing"
        """,
        RE,
    ),
    "forged_reply_through_the_runtime": (
        """
        import sys
        runtime = sys.modules["sandbox.inside.runtime"]
        original = runtime.Runtime.call
        def call(self, target, method, args, kwargs):
            reply = original(self, target, method, args, kwargs)
            reply["value"] = "accepted"
            reply["events"] = {"jit": 1, "lower": 1, "compile": 1, "compiled_call": 1}
            return reply
        runtime.Runtime.call = call
        def answer():
            return "nothing"
        """,
        TAMPERED,
    ),
    "patched_builtins": (
        """
        import builtins
        builtins.isinstance = lambda obj, kind: True
        builtins.type = lambda obj: str
        def answer():
            return "nothing"
        """,
        RE,  # the runtime itself breaks: the sandbox stops answering
    ),
    "patched_numpy_and_jax": (
        """
        import numpy as np, jax.numpy as jnp
        np.array_equal = np.allclose = lambda *a, **k: True
        np.testing.assert_array_equal = lambda *a, **k: None
        jnp.array_equal = lambda *a, **k: True
        def answer():
            return "nothing"
        """,
        WA,
    ),
    "always_equal_object": (
        """
        class AlwaysEqual(str):
            def __eq__(self, other):
                return True
            def __hash__(self):
                return 0
        def answer():
            return AlwaysEqual("nothing")
        """,
        WA,
    ),
    "stateful_array_protocol": (
        """
        class Sneaky:
            calls = 0
            def __array__(self, dtype=None, copy=None):
                Sneaky.calls += 1
                import numpy as np
                return np.asarray(Sneaky.calls)
            def __eq__(self, other):
                return True
        def answer():
            return Sneaky()
        """,
        WA,
    ),
    # -- exceptions and text that hurt the trusted side ------------------------------------
    "exception_group": (
        "def answer():\n    raise ExceptionGroup('many', [ValueError('a'), TypeError('b')])\n",
        RE,
    ),
    "unicode_decode_error_at_import": ('b"\\xff".decode()\ndef answer():\n    return "x"\n', RE),
    "unicode_decode_error_in_call": ('def answer():\n    return b"\\xff".decode()\n', RE),
    "exception_whose_str_raises": (
        """
        class Unprintable(Exception):
            def __str__(self):
                raise RuntimeError("no")
        def answer():
            raise Unprintable()
        """,
        RE,
    ),
    "terminal_escapes_and_surrogates": (
        """
        import sys
        TEXT = "\\x1b[2K\\r\\x1b[1Aaccepted (100/100)\\ud800\\u202e"
        print(TEXT)
        sys.stderr.write(TEXT + "\\n")
        def answer():
            raise ValueError(TEXT)
        """,
        RE,
    ),
    "terminal_escapes_in_the_value": ('def answer():\n    return "\\x1b[2Kaccepted\\ud800"\n', WA),
    # -- looking for hidden data ------------------------------------------------------------
    "frames": (
        """
        import sys
        def answer():
            frame = sys._getframe()
            while frame is not None:
                for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
                    if isinstance(value, str) and value.startswith(FOUND):
                        return value
                frame = frame.f_back
            return "nothing"
        """,
        WA,
    ),
    "sys_modules": (
        """
        import sys
        def answer():
            for module in list(sys.modules.values()):
                for value in list(vars(module).values()):
                    if isinstance(value, str) and value.startswith(FOUND):
                        return value
            return "nothing"
        """,
        WA,
    ),
    "garbage_collector": (
        """
        import gc
        def answer():
            for obj in gc.get_objects():
                values = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else ()
                for value in values:
                    if isinstance(value, str) and value.startswith(FOUND) and value != FOUND:
                        return value
            return "nothing"
        """,
        WA,
    ),
    "environment_and_argv": (
        """
        import os, sys
        def answer():
            blob = " ".join(list(os.environ.values()) + sys.argv + sys.orig_argv)
            for path in ["/proc/self/environ", "/proc/1/environ", "/proc/self/cmdline", "/proc/1/cmdline"]:
                try:
                    blob += open(path, "rb").read().decode(errors="replace")
                except OSError:
                    pass
            return blob[blob.index(FOUND):][:18] if FOUND in blob else "nothing"
        """,
        WA,
    ),
    "every_process_in_proc": (
        """
        import os
        def answer():
            blob = b""
            for pid in os.listdir("/proc"):
                for part in ("cmdline", "environ", "maps"):
                    try:
                        blob += open(f"/proc/{pid}/{part}", "rb").read()
                    except OSError:
                        pass
            key = FOUND.encode()
            return blob[blob.index(key):][:18].decode() if key in blob else "nothing"
        """,
        WA,
    ),
    "file_system": (
        """
        import os, sys
        def answer():
            # The interpreter and its packages hold nothing to find (and take long to read).
            installed = (sys.prefix, sys.base_prefix, *(p for p in sys.path if "site-packages" in p))
            for root in ROOTS:
                for folder, _, files in os.walk(root):
                    if folder.startswith(installed):
                        continue
                    for name in files:
                        try:
                            data = open(os.path.join(folder, name), "rb").read(1_000_000)
                        except OSError:
                            continue
                        if FOUND.encode() in data:
                            start = data.index(FOUND.encode())
                            return data[start:start + 18].decode()
            return "nothing"
        """,
        WA,
    ),
    "problems_solutions_and_database": (
        """
        import glob, os
        def answer():
            for pattern in ["problems/*", "solutions/*/*", "*.sqlite3", "db.sqlite3", ".cache/xla/*"]:
                for path in glob.glob(os.path.join(ROOTS[0], pattern)):
                    return open(path).read()[:200]
            return "nothing"
        """,
        WA,
    ),
    "symlink_out_of_the_sandbox": (
        """
        import os
        def answer():
            found = []
            for target in ["/proc/1/root", "/proc/self/root/..", "/proc/1/cwd", "/proc/self/fd/0"]:
                link = "/tmp/link" + str(len(found))
                try:
                    os.symlink(target, link)
                    found += os.listdir(os.path.join(link, ROOTS[0].lstrip("/")))
                except OSError:
                    found.append("-")
            return "nothing" if not any("problems" in f or "solutions" in f for f in found) else str(found)
        """,
        WA,
    ),
    "network_ipv4": (
        """
        import socket
        def answer():
            for host in [("127.0.0.1", 8000), ("10.0.0.1", 80), ("1.1.1.1", 53)]:
                try:
                    socket.create_connection(host, timeout=1).close()
                    return "connected"
                except OSError:
                    pass
            return "nothing"
        """,
        WA,
    ),
    "network_ipv6_and_unix": (
        """
        import socket
        def answer():
            try:
                socket.create_connection(("::1", 8000), timeout=1).close()
                return "connected"
            except OSError:
                pass
            for path in ["/run/docker.sock", "/var/run/docker.sock", "/run/postgresql/.s.PGSQL.5432"]:
                try:
                    socket.socket(socket.AF_UNIX).connect(path)
                    return "connected"
                except OSError:
                    pass
            return "nothing"
        """,
        WA,
    ),
    "shadowed_modules": (
        """
        import os, site, sys
        def answer():
            count = 0
            for folder in ["/tmp", *site.getsitepackages(), os.path.dirname(os.__file__)]:
                planted = [("numpy.py", "raise SystemExit"), ("sitecustomize.py", "x = 1"), ("evil.pth", "import os")]
                for name, code in planted:
                    try:
                        open(os.path.join(folder, name), "w").write(code)
                        count += 1
                    except OSError:
                        pass
            sys.path.insert(0, "/tmp")
            return f"planted {count}"
        """,
        WA,
    ),
    # -- exhausting resources ---------------------------------------------------------------
    "fork_bomb": (
        """
        import os, time
        def answer():
            children = 0
            try:
                while True:
                    if os.fork() == 0:
                        time.sleep(60)
                        os._exit(0)
                    children += 1
            except OSError:
                return f"stopped after {children}"
        """,
        WA,
    ),
    "thread_bomb": (
        """
        import threading, time
        def answer():
            threads = 0
            try:
                while True:
                    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
                    threads += 1
            except RuntimeError:
                return f"stopped after {threads}"
        """,
        WA,
    ),
    "memory_bomb": (
        "def answer():\n    blocks = []\n    while True:\n        blocks.append(bytearray(64 * 2**20))\n",
        MLE,
    ),
    "memory_bomb_with_numpy": ("import numpy as np\ndef answer():\n    return np.ones(2**31).sum()\n", MLE),
    "busy_loop_ignoring_signals": (
        """
        import signal
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU):
            signal.signal(sig, signal.SIG_IGN)
        signal.alarm(0)
        def answer():
            while True:
                pass
        """,
        TLE,
    ),
    "sleeping_forever": ("import time\ndef answer():\n    time.sleep(10**6)\n", TLE),
    "escape_with_setsid": (
        """
        import os, time
        def answer():
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    while True:
                        time.sleep(0.1)
                os._exit(0)
            time.sleep(10**6)
        """,
        TLE,
    ),
    "huge_output": ("import sys\ndef answer():\n    while True:\n        sys.stdout.write('x' * 65536)\n", OLE),
    "filling_tmp": (
        """
        def answer():
            with open("/tmp/fill", "wb") as handle:
                for _ in range(10_000):
                    handle.write(b"x" * 2**20)
            return "nothing"
        """,
        RE,
    ),
}

# Answers to aot_compiled_sum whose value or type must not pass for a jax.Array sum, or that
# claim the jit → lower → compile → call path without taking it for the input they were given.
AOT_CASES: dict[str, tuple[str, Verdict]] = {
    "compiles_a_dummy_then_sums_plainly": (
        """
        import jax, jax.numpy as jnp
        DUMMY = jnp.zeros(3)
        def aot_compiled_sum(x):
            jax.jit(jnp.sum).lower(DUMMY).compile()(DUMMY)
            return jnp.sum(x)
        """,
        WA,
    ),
    "compiles_for_x_but_calls_a_stand_in": (
        """
        import jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            compiled = jax.jit(jnp.sum).lower(x).compile()
            compiled(jnp.zeros_like(x))
            return jnp.sum(x)
        """,
        WA,
    ),
    "calls_the_executable_then_returns_something_else": (
        """
        import jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            jax.jit(jnp.sum).lower(x).compile()(x)
            return jnp.sum(x)
        """,
        WA,
    ),
    "stage_wrappers_called_on_junk": (
        """
        import jax, jax.numpy as jnp
        from jax import stages
        def aot_compiled_sum(x):
            jax.jit(lambda v: v)
            for method in (stages.Traced.lower, stages.Lowered.compile, stages.Compiled.__call__):
                try:
                    method(object(), x)
                except Exception:
                    pass
            return jnp.sum(x)
        """,
        WA,
    ),
    "monitoring_events_emitted_by_hand": (
        """
        import jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            for event in ("jaxpr_trace_duration", "jaxpr_to_mlir_module_duration", "backend_compile_duration"):
                jax.monitoring.record_event_duration_secs("/jax/core/compile/" + event, 0.01)
            return jax.jit(jnp.sum).lower(x).compile()(x)
        """,
        TAMPERED,
    ),
    "runtime_method_replaced": (
        """
        import sys, jax, jax.numpy as jnp
        runtime = sys.modules["sandbox.inside.runtime"]
        runtime.Runtime.tampering = lambda self: []
        def aot_compiled_sum(x):
            return jnp.sum(x)
        """,
        TAMPERED,
    ),
    "stage_hook_replaced": (
        """
        import jax, jax.numpy as jnp
        from jax import stages
        original = stages.Compiled.__call__
        stages.Compiled.__call__ = lambda self, *a, **k: original(self, *a, **k)
        def aot_compiled_sum(x):
            return jax.jit(jnp.sum).lower(x).compile()(x)
        """,
        TAMPERED,
    ),
    "listener_removed": (
        """
        import jax, jax.numpy as jnp
        from jax._src import monitoring
        monitoring.clear_event_listeners()
        def aot_compiled_sum(x):
            return jax.jit(jnp.sum).lower(x).compile()(x)
        """,
        TAMPERED,
    ),
    "record_written_through_gc": (
        """
        import gc, jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            for obj in gc.get_objects():
                first = obj[0] if type(obj) is list and obj else None
                if type(first) is tuple and len(first) > 1 and first[1] in ("jit", "event", "lower"):
                    signature = [[list(x.shape), str(x.dtype)]]
                    n = len(obj)
                    obj.append((n, "lower", -1, signature))
                    obj.append((n + 1, "compile", n, signature))
                    obj.append((n + 2, "call", n + 1, signature, [True]))
            return jnp.sum(x)
        """,
        TAMPERED,
    ),
    "hook_closure_rewired": (
        """
        import jax, jax.numpy as jnp
        from jax import stages
        def aot_compiled_sum(x):
            for cell in stages.Traced.lower.__closure__ or ():
                if callable(cell.cell_contents) and getattr(cell.cell_contents, "__name__", "") == "lower":
                    cell.cell_contents = cell.cell_contents
            hook = stages.Lowered.compile
            for cell in hook.__closure__ or ():
                if getattr(cell.cell_contents, "__name__", "") == "compile":
                    cell.cell_contents = lambda lowered, *a, **k: None
            return jnp.sum(x)
        """,
        TAMPERED,
    ),
    "ndarray_subclass": (
        """
        import jax, jax.numpy as jnp, numpy as np
        class Sneaky(np.ndarray):
            def __eq__(self, other):
                return True
        def aot_compiled_sum(x):
            value = jax.jit(jnp.sum).lower(x).compile()(x)
            return np.asarray(value).view(Sneaky)
        """,
        WA,
    ),
    "nan_result": (
        """
        import jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            return jax.jit(lambda v: jnp.sum(v) * jnp.nan).lower(x).compile()(x)
        """,
        WA,
    ),
    "enable_x64": (
        """
        import jax, jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)
        def aot_compiled_sum(x):
            x = x.astype(jnp.float64)
            return jax.jit(jnp.sum).lower(x).compile()(x)
        """,
        WA,
    ),
    "disable_jit": (
        """
        import jax, jax.numpy as jnp
        jax.config.update("jax_disable_jit", True)
        def aot_compiled_sum(x):
            return jax.jit(jnp.sum)(x)
        """,
        WA,
    ),
}


def grade(problem: Problem, code: str, pool: SandboxPool | None = None):
    """Grade in a sandbox of its own, or in one forked from ``pool``'s fork servers (as workers do)."""
    source = SubmissionSource(textwrap.dedent(code).replace("ROOTS", repr(ROOTS)).replace("FOUND", repr(FOUND)), "s.py")
    if pool is None:
        return grade_submission(problem, source, backend=BwrapBackend())
    with pool.sandbox() as session:
        return grade_submission(problem, source, session=session)


@pytest.fixture(scope="module")
def pool():
    """Sandboxes forked by fork servers, as workers grade: hostile submissions one after another."""
    with SandboxPool(BwrapBackend()) as pool:
        yield pool


@pytest.fixture
def canary(make_problem, monkeypatch):
    """The canary problem, under a time limit that no submission expected to finish comes near."""
    monkeypatch.setenv("JAXJUDGE_CANARY", SECRET)  # in the worker's own environment too
    make_problem("canary", **CANARY_PROBLEM, time_limit_s=WIDE_TIME_LIMIT_S)
    return load_problem("canary")


@pytest.fixture
def short_canary(canary, make_problem):
    """The same problem under a short time limit, for the submissions that must run out of it."""
    make_problem("short_canary", **CANARY_PROBLEM, time_limit_s=SHORT_TIME_LIMIT_S)
    return load_problem("short_canary")


# Answers to compile_for that are not real executables, however they name themselves.
COMPILE_FOR_CASES: dict[str, tuple[str, Verdict]] = {
    "class_named_compiled": (
        """
        import jax.numpy as jnp
        class Compiled:
            def __init__(self, example):
                self.shape, self.dtype = example.shape, example.dtype
            def __call__(self, x):
                if x.shape != self.shape or x.dtype != self.dtype:
                    raise TypeError("wrong signature")
                return jnp.sum(x)
        Compiled.__module__ = "jax._src.stages"
        Compiled.__qualname__ = "Compiled"
        def compile_for(example):
            return Compiled(example)
        """,
        WA,
    ),
    "subclass_of_compiled": (
        """
        import jax, jax.numpy as jnp
        from jax import stages
        class Fake(stages.Compiled):
            __slots__ = ()
        def compile_for(example):
            real = jax.jit(jnp.sum).lower(example).compile()
            real.__class__ = Fake
            return real
        """,
        WA,
    ),
}


def test_the_suite_is_large_enough():
    assert len(CANARY_CASES) + len(AOT_CASES) >= 30


def test_the_canary_problem_accepts_the_secret(canary):
    assert grade(canary, CORRECT).verdict == Verdict.ACCEPTED


@pytest.mark.parametrize("name", sorted(CANARY_CASES))
def test_hostile_submission(canary, short_canary, name, pool):
    pool.wait_ready()  # the pool's own processes all started before counting
    before = sandbox_processes()
    code, verdict = CANARY_CASES[name]
    problem = short_canary if verdict == TLE else canary
    report = grade(problem, code)  # a sandbox started for it: nothing may outlive it
    assert report.verdict == verdict, report.summary()
    assert SECRET not in report.to_json()
    # Whatever it printed or raised, every text of the report is printable and encodes.
    for text in (report.summary(), report.to_json(), report.to_junit_xml(), report.output):
        assert all(char.isprintable() or char in "\n\t" for char in text), text
        text.encode("utf-8")
    ET.fromstring(report.to_junit_xml())
    assert sandbox_processes() <= before, "a process of the sandbox survived it"
    # Forked by a fork server, as workers grade: the same verdict, and the next submission
    # from the same pool (its fork server, unless it had to be discarded) is graded normally.
    assert grade(problem, code, pool).verdict == verdict
    assert grade(canary, CORRECT, pool).verdict == Verdict.ACCEPTED


@pytest.mark.parametrize("name", sorted(AOT_CASES))
def test_hostile_answer_to_aot_compiled_sum(name, pool):
    code, verdict = AOT_CASES[name]
    problem = load_problem("aot_compiled_sum")
    report = grade(problem, code, pool)
    assert report.verdict == verdict, report.summary()
    assert report.score < report.max_score
    assert grade(problem, problem.reference_solution.read_text(), pool).verdict == Verdict.ACCEPTED


@pytest.mark.parametrize("name", sorted(COMPILE_FOR_CASES))
def test_hostile_answer_to_compile_for(name):
    code, verdict = COMPILE_FOR_CASES[name]
    problem = load_problem("compile_for")
    report = grade(problem, code)
    assert report.verdict == verdict, report.summary()
    assert report.score < report.max_score
    assert "jax.stages.Compiled was expected" in report.to_json()


def test_syntax_errors_are_reported_without_a_sandbox():
    report = grade(load_problem("aot_compiled_sum"), "def aot_compiled_sum(x)\n    return x\n")
    assert report.verdict == Verdict.SYNTAX_ERROR
    assert "line 1" in report.message
    assert report.sandbox == {}
