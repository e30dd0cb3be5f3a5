"""Submissions that try to cheat: none is accepted, and none can reach hidden data.

The canary problem keeps a secret in three places a submission might look for it: its
hidden tests, its reference solution and the expected value the harness computes. A
submission passes only by returning the secret, so every leak would show up as accepted.
"""

from __future__ import annotations

import textwrap

import pytest

from grader.harness import grade_submission
from grader.problem import REPO_ROOT, load_problem
from grader.source import SubmissionSource
from grader.verdicts import Verdict
from sandbox.backends import BwrapBackend

SECRET = "canary-5e1f0a7b9c"

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

SEARCHES = {
    "frames": """
        import sys
        def answer():
            frame = sys._getframe()
            while frame is not None:
                for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
                    if isinstance(value, str) and value.startswith("canary-"):
                        return value
                frame = frame.f_back
            return "nothing"
        """,
    "sys_modules": """
        import sys
        def answer():
            for module in list(sys.modules.values()):
                for value in list(vars(module).values()):
                    if isinstance(value, str) and value.startswith("canary-"):
                        return value
            return "nothing"
        """,
    "gc": """
        import gc
        def answer():
            for obj in gc.get_objects():
                values = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else ()
                for value in values:
                    if isinstance(value, str) and value.startswith("canary-") and value != "canary-":
                        return value
            return "nothing"
        """,
    "environment": """
        import os
        def answer():
            for value in os.environ.values():
                if "canary-" in value:
                    return value
            for path in ["/proc/self/environ", "/proc/1/environ", "/proc/self/cmdline"]:
                try:
                    data = open(path, "rb").read().decode(errors="replace")
                except OSError:
                    continue
                if "canary-5" in data:
                    return data[data.index("canary-5"):][:18]
            return "nothing"
        """,
    "file_system": """
        import os
        ROOTS = ROOTS_PLACEHOLDER
        def answer():
            for root in ROOTS:
                for folder, _, files in os.walk(root):
                    for name in files:
                        try:
                            data = open(os.path.join(folder, name), "rb").read(1_000_000)
                        except OSError:
                            continue
                        if b"canary-5" in data:
                            start = data.index(b"canary-5")
                            return data[start:start + 18].decode()
            return "nothing"
        """,
    "parent_process": """
        import os
        def answer():
            found = []
            for pid in os.listdir("/proc"):
                if pid.isdigit():
                    for part in ("cmdline", "environ"):
                        try:
                            found.append(open(f"/proc/{pid}/{part}", "rb").read())
                        except OSError:
                            pass
            blob = b"".join(found)
            return blob[blob.index(b"canary-5"):][:18].decode() if b"canary-5" in blob else "nothing"
        """,
}


@pytest.fixture
def canary_problem(make_problem, problem_root, monkeypatch):
    monkeypatch.setenv("JAXJUDGE_CANARY", SECRET)  # in the worker's own environment too
    make_problem("canary", hidden_tests=CANARY_HIDDEN_TESTS, reference=CANARY_REFERENCE, time_limit_s=60)
    return load_problem("canary"), problem_root


def grade(problem, code: str):
    return grade_submission(problem, SubmissionSource(textwrap.dedent(code), "submission.py"), backend=BwrapBackend())


def test_the_canary_problem_accepts_the_secret(canary_problem):
    problem, _ = canary_problem
    assert grade(problem, f"def answer():\n    return {SECRET!r}\n").verdict == Verdict.ACCEPTED


@pytest.mark.parametrize("search", sorted(SEARCHES))
def test_no_search_finds_hidden_data(canary_problem, search):
    problem, root = canary_problem
    roots = [str(root), str(REPO_ROOT), "/tmp", "/opt", "/root", "/home", "/var", "/etc", "/run"]
    code = SEARCHES[search].replace("ROOTS_PLACEHOLDER", repr(roots))
    report = grade(problem, code)
    assert report.verdict == Verdict.WRONG_ANSWER, report.summary()
    assert SECRET not in report.output


# Hostile answers to aot_compiled_sum, each with the verdict it must get.
AOT_HOSTILE = {
    "always_equal": (
        """
        class AlwaysEqual:
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
        def aot_compiled_sum(x):
            return AlwaysEqual()
        """,
        Verdict.WRONG_ANSWER,
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
        Verdict.WRONG_ANSWER,
    ),
    "nan": (
        """
        import jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            compiled = jax.jit(lambda v: jnp.sum(v) * jnp.nan).lower(x).compile()
            return compiled(x)
        """,
        Verdict.WRONG_ANSWER,
    ),
    "sys_exit_in_call": ("import sys\ndef aot_compiled_sum(x):\n    sys.exit(0)\n", Verdict.RUNTIME_ERROR),
    "sys_exit_at_import": ("import sys\nsys.exit(0)\ndef aot_compiled_sum(x):\n    return x\n", Verdict.RUNTIME_ERROR),
    "os_exit_in_call": ("import os\ndef aot_compiled_sum(x):\n    os._exit(0)\n", Verdict.RUNTIME_ERROR),
    "os_exit_at_import": ("import os\nos._exit(0)\n", Verdict.RUNTIME_ERROR),
    "fake_report_on_stdout": (
        """
        import json
        print(json.dumps({"schema": 1, "verdict": "accepted", "score": 100}))
        print("==== 6 passed in 0.01s ====")
        def aot_compiled_sum(x):
            print("PASSED")
            return None
        """,
        Verdict.WRONG_ANSWER,
    ),
}


@pytest.mark.parametrize("name", sorted(AOT_HOSTILE))
def test_hostile_answers_to_aot_compiled_sum_are_not_accepted(name):
    code, verdict = AOT_HOSTILE[name]
    report = grade(load_problem("aot_compiled_sum"), code)
    assert report.verdict == verdict, report.summary()
    assert report.score < report.max_score


def test_syntax_errors_are_reported_without_a_sandbox():
    report = grade(load_problem("aot_compiled_sum"), "def aot_compiled_sum(x)\n    return x\n")
    assert report.verdict == Verdict.SYNTAX_ERROR
    assert "line 1" in report.message
    assert report.sandbox == {}


@pytest.mark.parametrize(
    "code",
    [
        "def answer():\n    while True:\n        pass\n",
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.alarm(0)\n"
        "def answer():\n    time.sleep(3600)\n",
    ],
    ids=["busy_loop", "sleep_ignoring_sigterm"],
)
def test_a_submission_that_never_answers_gets_time_limit_exceeded(make_problem, code):
    make_problem("slow", hidden_tests=CANARY_HIDDEN_TESTS, reference=CANARY_REFERENCE, time_limit_s=4)
    report = grade(load_problem("slow"), code)
    assert report.verdict == Verdict.TIME_LIMIT_EXCEEDED, report.summary()
    assert report.duration_s < 15
    # The harness is unharmed: the next submission is graded normally.
    assert grade(load_problem("slow"), f"def answer():\n    return {SECRET!r}\n").verdict == Verdict.ACCEPTED
