"""``python -m sandbox.host selftest``: what an operator runs on a new host, for each backend.

One program that must work (import JAX, compile ahead of time, return the right sum) and a
list of forbidden acts that must fail. Each check prints one line; the exit status is 0
only when every check went as it must.
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from sandbox import protocol
from sandbox.host.backends import Backend, SandboxLimits
from sandbox.host.session import SandboxError, SandboxMemoryExceeded, SandboxSession, SandboxTimeout

CHECKS_AT_ONCE = 3


@dataclass(frozen=True)
class Check:
    name: str
    source: str
    passed: Callable[[str, object], bool]  # (reply op or error class name, value) -> ok?
    limits: SandboxLimits | None = None


def _checks(secret_path: str) -> list[Check]:
    return [
        Check(
            "a JAX program runs and compiles ahead of time",
            """
            import jax, jax.numpy as jnp
            def probe():
                x = jnp.arange(10.0)
                return float(jax.jit(jnp.sum).lower(x).compile()(x))
            """,
            lambda op, value: op == protocol.OK and value == 45.0,
        ),
        Check(
            "a file of the host cannot be read",
            f"""
            def probe():
                return open({secret_path!r}).read()
            """,
            lambda op, value: op == protocol.ERROR,
        ),
        Check(
            "there is no network",
            """
            import socket
            def probe():
                socket.create_connection(("127.0.0.1", 22), timeout=2)
            """,
            lambda op, value: op == protocol.ERROR,
        ),
        Check(
            "the interpreter cannot be modified",
            """
            import os, sys
            def probe():
                open(os.path.join(sys.prefix, "planted.py"), "w").write("x = 1")
            """,
            lambda op, value: op == protocol.ERROR,
        ),
        Check(
            "processes of the host are invisible",
            """
            import os
            def probe():
                return max(int(p) for p in os.listdir("/proc") if p.isdigit())
            """,
            lambda op, value: op == protocol.OK and isinstance(value, int) and value < 100,
        ),
        Check(
            "the environment is cleared",
            """
            import os
            def probe():
                return sorted(os.environ)
            """,
            lambda op, value: op == protocol.OK and isinstance(value, list) and "JAXJUDGE_SELFTEST" not in value,
        ),
        Check(
            "a memory bomb is stopped",
            """
            def probe():
                blocks = []
                while True:
                    blocks.append(bytearray(64 * 2**20))
            """,
            lambda op, value: op in (SandboxMemoryExceeded.__name__, protocol.ERROR),
            SandboxLimits(memory_bytes=512 * 2**20),
        ),
        Check(
            "an endless loop is stopped at its deadline",
            "def probe():\n    while True:\n        pass\n",
            lambda op, value: op == SandboxTimeout.__name__,
            SandboxLimits(call_seconds=2),
        ),
        Check(
            "a fork bomb is contained",
            """
            import os, time
            def probe():
                count = 0
                try:
                    while count < 10_000:
                        if os.fork() == 0:
                            time.sleep(30)
                            os._exit(0)
                        count += 1
                except OSError:
                    return count
                return count
            """,
            lambda op, value: op == protocol.OK and isinstance(value, int) and value < 10_000,
            SandboxLimits(max_processes=64),
        ),
    ]


def run_check(backend: Backend, check: Check) -> tuple[bool, str]:
    """Run one check in a fresh sandbox; return whether it went as it must, and what happened."""
    with SandboxSession(backend, check.limits) as session:
        try:
            op, reply = session.request(protocol.LOAD, source=textwrap.dedent(check.source), filename="selftest.py")
            if op == protocol.OK:
                op, reply = session.request(protocol.CALL, target="probe", method=None, args=[], kwargs={})
        except SandboxError as exc:
            return check.passed(type(exc).__name__, None), f"{type(exc).__name__}: {exc}"
    value = reply.get(protocol.VALUE) if op == protocol.OK else reply.get(protocol.ERROR_MESSAGE)
    return check.passed(op, value), f"{op}: {str(value)[:80]}"


def selftest(backend: Backend) -> bool:
    """Run every check with ``backend``, print one line each, and say whether all passed."""
    os.environ["JAXJUDGE_SELFTEST"] = "a value of the host's environment"
    all_passed = True
    with tempfile.NamedTemporaryFile("w", prefix="jaxjudge-selftest-", suffix=".txt") as secret:
        secret.write("a file of the host")
        secret.flush()
        checks = _checks(secret.name)
        # Each check has a sandbox of its own, and most of a check is its sandbox starting: a few
        # at a time, reported in order.
        with ThreadPoolExecutor(max_workers=CHECKS_AT_ONCE) as executor:
            for check, (passed, what) in zip(
                checks, executor.map(lambda c: run_check(backend, c), checks), strict=True
            ):
                all_passed &= passed
                print(f"{'ok  ' if passed else 'FAIL'} {check.name:<48} {what}")
    print(f"{backend.name}: {'all checks passed' if all_passed else 'SOME CHECKS FAILED'}")
    return all_passed
