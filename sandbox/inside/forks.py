"""Inside the fork server's sandbox: import JAX once, then fork one single-use runtime per submission.

The host's side is ``sandbox.host.forkserver``. Each child serves one submission with the
function the runtime hands over (``runtime.serve_one``), in namespaces of its own; between two
of them every other process of the sandbox is killed and its scratch directories emptied.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

from sandbox import JAX_FIRST_USE_MODULES, protocol
from sandbox.inside.kernel import ipython_environment

PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x08000000, 0x10000000, 0x20000000
SUBMISSION_NAMESPACES = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNS
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 0x1, 0x2, 0x4, 0x8, 0x20
# Where a submission may write: emptied between two submissions of one fork server.
SCRATCH_DIRECTORIES = ("/tmp", "/dev/shm")


def serve_forks(control_fd: int, *, serve_submission: Callable[[], None]) -> None:
    """Import JAX (and IPython) once, then fork one single-use runtime per submission.

    Each child takes the three pipes of its session (received over the control socket) as
    its fds 0, 1 and 2, closes everything else this process holds, and serves one submission
    with ``serve_submission``. One child at a time: when the host says the submission is over,
    every other process of this sandbox is killed (``kill(-1)``), reaped, and the scratch
    directories emptied before the next fork, so nothing a submission did reaches the next.
    Each submission runs in namespaces of its own (``_become_submission``), where it can
    neither see nor signal this process, which runs no submission code and is not dumpable
    besides. Should it still fail to answer, the host discards the whole sandbox.
    """
    import ctypes
    import gc
    import json
    import signal
    import socket

    if os.getpid() > 2:
        # Its clean-up kills every process it may signal and empties /tmp: that must reach this
        # sandbox alone, so it runs only as the first process of a PID namespace of its own
        # (pid 2 under bubblewrap's init).
        raise SystemExit("fork server: not in a sandbox's own PID namespace; refusing to start")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # orphans of a child come here, to be reaped
    # Whether its children run notebooks (each prepares a kernel, and runs nbclient, inside).
    notebooks = os.environ.pop(protocol.NOTEBOOK_VARIABLE, "") == "1"
    preload(notebooks=notebooks)
    import jax  # imported by preload: for its version

    # What is imported now stays out of the garbage collector's reach: its passes would touch
    # every object in every child, copying each page the fork shares.
    gc.freeze()
    control = socket.socket(fileno=control_fd)  # a SOCK_SEQPACKET pair: one message a request
    default_handlers = {number: signal.getsignal(number) for number in _catchable_signals()}
    for number in default_handlers:  # a signal from a child must not run code here
        signal.signal(number, signal.SIG_IGN)

    def send(op: str, **fields: Any) -> None:
        control.send(json.dumps({"op": op, **fields}).encode())

    send(
        protocol.READY,
        **{protocol.PID: os.getpid(), protocol.JAX_VERSION: jax.__version__, protocol.NAMESPACES: _can_unshare(libc)},
    )
    child = 0
    while True:
        message, fds, _, _ = socket.recv_fds(control, protocol.MAX_CONTROL_LINE_BYTES, 3)
        if not message:
            return  # the host is gone
        request = json.loads(message)
        if request.get("op") == protocol.END and child:
            status, cpu_seconds = _end_submission(child)
            send(protocol.ENDED, **{protocol.STATUS: status, protocol.CPU_SECONDS: cpu_seconds})
            child = 0
        elif request.get("op") == protocol.FORK and not child and len(fds) == 3:
            report_read, report_write = os.pipe()
            starter = os.fork()
            if starter == 0:
                _become_submission(fds, default_handlers, notebooks, report_write, serve_submission)
            for fd in (*fds, report_write):
                os.close(fd)
            reported = os.read(report_read, 4)
            os.close(report_read)
            os.waitpid(starter, 0)
            if len(reported) != 4:
                raise SystemExit("fork server: the submission's namespace did not start")
            child = int.from_bytes(reported, "little")  # its init, an orphan now: ours to reap
            send(protocol.FORKED, **{protocol.PID: child})
        else:
            raise SystemExit(f"fork server: unexpected request {request!r}")


def preload(*, notebooks: bool) -> None:
    """What every child needs, imported (and first used) once, in the fork server. Nothing here
    may start JAX's backend or a thread: the children are forked from this process."""
    for module in ("jax.export", "jax.extend", "jax.numpy", *JAX_FIRST_USE_MODULES):
        importlib.import_module(module)
    if notebooks:
        ipython_environment()
        import psutil  # type: ignore[import-untyped]  # noqa: F401  (ipykernel's, as its kernel starts)
        from ipykernel.kernelapp import IPKernelApp  # noqa: F401

        from sandbox.inside import notebook_runner
        from sandbox.inside.kernel import KERNEL_START_MODULES

        for module in KERNEL_START_MODULES:
            with contextlib.suppress(ImportError):  # another IPython may lack one: not preloaded
                importlib.import_module(module)
        notebook_runner.warm_up()
        _warm_up_tracebacks()


def _warm_up_tracebacks() -> None:
    """Have IPython format a traceback as a kernel does for a failing cell, once, here.

    The first one in a process cost 0.6 CPU-s, which every notebook with a failing cell paid:
    compiling pygments' Python lexer, mapping every module to its file, and parsing IPython's
    own ``interactiveshell.py`` (whose ``run_code`` frame is in every cell's traceback) to
    find what each frame was executing. The children inherit those caches.
    """
    import stack_data
    from IPython.core import interactiveshell
    from IPython.core.ultratb import AutoFormattedTB

    try:
        raise ZeroDivisionError("warming up tracebacks")
    except ZeroDivisionError:
        AutoFormattedTB(mode="Context").structured_traceback(*sys.exc_info())
    stack_data.Source.for_filename(interactiveshell.__file__)


GO = b"\x00"  # the host's word that this child is in its session's cgroup


def _become_submission(
    fds: list[int], handlers: dict[int, Any], notebook: bool, report: int, serve_submission: Callable[[], None]
) -> None:
    """In a fresh child of the fork server: take the session's pipes and start the submission
    in a PID namespace of its own, whose init reports its pid on ``report`` and then forks the
    submission's process (pid 2 there, as in a sandbox started for it).

    In its own namespace the submission can neither see nor signal the fork server (or any
    other process of this sandbox); when its init dies, the kernel kills all of it.
    """
    import ctypes
    import signal

    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        # A user namespace of its own is what allows the PID (and IPC) namespace without privilege.
        libc = ctypes.CDLL(None, use_errno=True)
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(SUBMISSION_NAMESPACES) != 0:
            raise OSError(ctypes.get_errno(), "unshare of the submission's namespaces failed")
        # The same ids inside as outside: files it creates (in its own /proc) need a mapped owner.
        for name, text in (("uid_map", f"{uid} {uid} 1"), ("setgroups", "deny"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
        init = os.fork()  # pid 1 of the new namespace
        if init:
            os.write(report, init.to_bytes(4, "little"))
            os._exit(0)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the control socket above all
        _replace_proc(libc)
        if os.read(0, 1) != GO:
            os._exit(1)
        submission = os.fork()
        if submission == 0:
            for number, handler in handlers.items():
                signal.signal(number, handler)
            if notebook:
                os.environ[protocol.NOTEBOOK_VARIABLE] = "1"
            serve_submission()
            os._exit(0)
        while True:  # the namespace's init: reap every orphan until the submission itself ends
            pid, status = os.waitpid(-1, 0)
            if pid == submission:
                code = os.waitstatus_to_exitcode(status)
                os._exit(code if code >= 0 else 128 - code)  # a signal N as 128 + N, as bwrap says it
    except BaseException:
        traceback.print_exc()
        os._exit(1)


# What a submission's /proc holds: copies of the host's descriptions, which libraries read
# (XLA's CPU kernels refuse to run without /proc/cpuinfo).
PROC_FILES = ("cpuinfo", "meminfo")


def _replace_proc(libc: Any) -> None:
    """Put a small read-only /proc of copies in place of the fork server's.

    That /proc shows the fork server's PID namespace, not the submission's (the kernel refuses
    a /proc of its own under bwrap's): its entries would name the fork server, and code that
    reads its own pid's entry (psutil, in IPython's kernel) would read another process's.
    """
    import ctypes

    copies = {}
    for name in PROC_FILES:
        with contextlib.suppress(OSError), open(f"/proc/{name}", "rb") as handle:
            copies[name] = handle.read()
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    if libc.mount(b"none", b"/proc", b"tmpfs", flags, b"size=256k,mode=555") != 0:
        raise OSError(ctypes.get_errno(), "replacing the submission's /proc failed")
    for name, content in copies.items():
        with open(f"/proc/{name}", "wb") as handle:
            handle.write(content)
    if libc.mount(b"none", b"/proc", None, MS_REMOUNT | MS_RDONLY | flags, None) != 0:
        raise OSError(ctypes.get_errno(), "making the submission's /proc read-only failed")


def _can_unshare(libc: Any) -> bool:
    """Whether a child can have the namespaces of its own that ``_become_submission`` gives it."""
    probe = os.fork()
    if probe == 0:
        os._exit(0 if libc.unshare(SUBMISSION_NAMESPACES) == 0 else 1)
    return os.waitstatus_to_exitcode(os.waitpid(probe, 0)[1]) == 0


def _end_submission(child: int) -> tuple[int, float]:
    """Kill every process of this sandbox but this one, reap them all, empty the scratch
    directories; the exit status of the submission's process and the CPU time it used."""
    import shutil
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)  # every process this one may signal: all of the submission's
    status, cpu_seconds = -signal.SIGKILL, 0.0
    while True:
        try:
            pid, wait_status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            break
        if pid == child:
            status = os.waitstatus_to_exitcode(wait_status)
            cpu_seconds = usage.ru_utime + usage.ru_stime
    for directory in SCRATCH_DIRECTORIES:
        with contextlib.suppress(OSError):
            for entry in os.scandir(directory):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
    return status, cpu_seconds


def _catchable_signals() -> list[int]:
    import signal

    # SIGCHLD keeps its default: ignoring it would have the kernel reap children unasked.
    left_alone = {signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD}
    return [number for number in signal.valid_signals() if number not in left_alone and number < signal.SIGRTMIN]
