"""A notebook fork server's preload (``sandbox.inside.forks.preload``) leaves a kernel nothing to
import as it starts: each child forked from it would otherwise import it again."""

import json
import subprocess
import sys

from grader.problem import REPO_ROOT

STARTS_A_KERNEL = """
import json, os, sys, tempfile
home = tempfile.mkdtemp()
os.environ["HOME"] = home
tempfile.tempdir = home
from sandbox.inside import forks
forks.preload(notebooks=True)
for variable in ("IPYTHONDIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR"):
    os.environ[variable] = os.path.join(home, variable.lower())  # not the machine's /tmp
before = set(sys.modules)
from sandbox.inside.kernel import Kernel
kernel = Kernel()
print(json.dumps(sorted(set(sys.modules) - before - {"sandbox.inside.kernel"})))
"""


def test_a_kernel_imports_nothing_its_fork_server_has_not_imported() -> None:
    result = subprocess.run(
        [sys.executable, "-c", STARTS_A_KERNEL], capture_output=True, text=True, cwd=REPO_ROOT, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    imported = json.loads(result.stdout.strip().splitlines()[-1])
    assert imported == [], f"add these to sandbox.inside.kernel.KERNEL_START_MODULES: {imported}"
