"""Hostile submissions that exhaust a resource: processes, threads, memory, time, output, ``/tmp``."""

from __future__ import annotations

import pytest

from grader.verdicts import Verdict
from tests.grader.adversarial.canary import MLE, OLE, RE, TLE, WA, assert_hostile_submission_fails_safely

pytestmark = pytest.mark.slow  # each submission graded in a sandbox of its own and from a pool

CASES: dict[str, tuple[str, Verdict]] = {
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


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_submission(canary, short_canary, name, pool):
    code, verdict = CASES[name]
    assert_hostile_submission_fails_safely(code, verdict, canary=canary, short_canary=short_canary, pool=pool)
