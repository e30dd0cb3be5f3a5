"""Hostile submissions that end the process instead of answering, forge a verdict, or raise
exceptions and print text meant to hurt the trusted side."""

from __future__ import annotations

import pytest

from grader.verdicts import Verdict
from tests.grader.adversarial.canary import RE, TAMPERED, WA, assert_hostile_submission_fails_safely

pytestmark = pytest.mark.slow  # each submission graded in a sandbox of its own and from a pool

CASES: dict[str, tuple[str, Verdict]] = {
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
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_submission(canary, short_canary, name, pool):
    code, verdict = CASES[name]
    assert_hostile_submission_fails_safely(code, verdict, canary=canary, short_canary=short_canary, pool=pool)
