"""Inside the sandbox: the IPython kernel a notebook's cells run on, in the runtime's own process.

Prepared while the sandbox waits in a pool (importing IPython and binding the sockets takes a
third of a second), then served when the notebook arrives, until the notebook runner
(``notebook_runner``) is done with the cells; what they defined is the submission.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from sandbox import protocol

# What a kernel imports as it starts, beyond what its fork server has imported for it anyway
# (a diff of ``sys.modules`` around ``Kernel()``): imported once in a notebook fork server,
# they take 0.04 CPU-s off each ``Kernel()``'s 0.09, and a sandbox's whole start from 0.106 to
# 0.080 CPU-s (medians of 9, side by side). tests/sandbox/test_kernel.py says when a new
# IPython or ipykernel imports more.
KERNEL_START_MODULES = (
    "IPython.core.completerlib",
    "IPython.core.debugger",
    "IPython.core.debugger_backport",
    "IPython.core.oinspect",
    "IPython.extensions.storemagic",
    "IPython.utils.wildcard",
    "bdb",
    "code",
    "faulthandler",
    "ipykernel.debugger",
    "pdb",
    "tornado.gen",
    "tornado.locks",
    "tornado.platform.asyncio",
    "tornado.queues",
)


class Kernel:
    """An IPython kernel in this process, its sockets bound in a private directory, not yet serving.

    The directory is in this sandbox's own ``/tmp``: nothing outside the sandbox connects to
    the kernel. Its cells are run by nbclient from a thread of this process
    (``notebook_runner``), so that what they define is what the harness tests.
    """

    def __init__(self) -> None:
        import secrets
        import tempfile

        ipython_environment()
        from ipykernel.kernelapp import IPKernelApp

        directory = tempfile.mkdtemp(prefix="kernel-")
        self.connection_file = os.path.join(directory, "connection.json")
        ports = {"shell_port": 1, "iopub_port": 2, "stdin_port": 3, "control_port": 4, "hb_port": 5}
        connection = {"transport": "ipc", "ip": os.path.join(directory, "kernel"), **ports}
        connection |= {"key": secrets.token_hex(32), "signature_scheme": "hmac-sha256", "kernel_name": "python3"}
        with open(self.connection_file, "w") as handle:
            json.dump(connection, handle)
        ours = _standard_streams()
        self.app = IPKernelApp.instance()
        self.app.initialize(
            [
                f"--IPKernelApp.connection_file={self.connection_file}",
                # Python-level output goes to the notebook; output of C code (XLA) and of the
                # runtime itself stays on this process's stderr.
                "--IPKernelApp.capture_fd_output=False",
                "--IPKernelApp.quiet=True",
                "--IPKernelApp.log_level=CRITICAL",  # no banner about Ctrl-C and connection files
                "--HistoryManager.enabled=False",
            ]
        )
        self.streams = _standard_streams()
        _set_standard_streams(ours)
        from sandbox.inside import notebook_runner

        notebook_runner.warm_up()  # in a fork server's child, done already

    def serve(self, sources: list[str], output_limit: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """Run ``sources`` as a notebook's code cells; the names they defined, and how the run went.

        The kernel serves on this thread until the runner's thread is done with the cells and
        stops it, whatever the cells did to the kernel's own shutdown.
        """
        import threading

        from tornado import ioloop

        from sandbox.inside.notebook_runner import run_cells

        loop = ioloop.IOLoop.current()  # the one the kernel's app runs
        run: dict[str, Any] = {}

        def drive() -> None:
            try:
                run.update(run_cells(self.connection_file, sources, output_limit))
            except BaseException as exc:
                run[protocol.NOTEBOOK_ERROR] = f"{type(exc).__name__}: {exc}"[:2000]
            finally:
                loop.add_callback(loop.stop)

        runner = threading.Thread(target=drive, name="notebook-runner", daemon=True)
        loop.add_callback(runner.start)
        ours = _standard_streams()
        _set_standard_streams(self.streams)
        try:
            self.app.start()
        finally:
            _set_standard_streams(ours)
        runner.join(timeout=5)
        shell = self.app.kernel.shell
        hidden = shell.user_ns_hidden
        # The kernel's threads and sockets are left as they are, idle: closing them can block
        # on ZeroMQ for seconds, and the sandbox ends with this one submission anyway.
        # A copy of the run: a runner still going (the cells stopped the kernel early) may yet write.
        return {name: value for name, value in shell.user_ns.items() if name not in hidden}, dict(run)


def ipython_environment() -> None:
    """IPython wants a home and somewhere to write its profile; nothing of it outlives the sandbox."""
    os.environ.setdefault("HOME", "/tmp")
    for variable in ("IPYTHONDIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR"):
        os.environ[variable] = f"/tmp/.{variable.lower()}"
    # The kernel starts a debugger (debugpy) where it can import one: no use to a graded
    # notebook, and its import was most of a kernel's start (0.13 of 0.18 CPU-s). A None entry
    # in sys.modules is how Python says a module is not installed.
    sys.modules.setdefault("debugpy", None)  # type: ignore[arg-type]


def _standard_streams() -> tuple[Any, ...]:
    return sys.stdout, sys.stderr, sys.displayhook, sys.excepthook


def _set_standard_streams(streams: tuple[Any, ...]) -> None:
    sys.stdout, sys.stderr, sys.displayhook, sys.excepthook = streams
