import subprocess
import sys

import pytest

from grader.problem import REPO_ROOT

pytestmark = pytest.mark.slow  # a sandbox for each of its checks


def selftest(backend: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sandbox.host", "selftest", "--backend", backend],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=300,
    )


def test_bwrap_passes_its_selftest():
    result = selftest("bwrap")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "bwrap: all checks passed" in result.stdout
    assert result.stdout.count("\nok ") + result.stdout.startswith("ok ") == 9


def test_the_selftest_catches_a_backend_without_isolation():
    result = selftest("process")
    assert result.returncode == 1
    assert "FAIL a file of the host cannot be read" in result.stdout
    assert "FAIL processes of the host are invisible" in result.stdout
