"""A notebook run as Jupyter runs it, with its kernel inside a sandbox.

The trusted side plays Jupyter's part: nbclient sends the notebook's cells one at a time to
an IPython kernel that lives in the sandbox (``runtime.Kernel``), which runs them in the very
process the harness later calls the submission's functions in. The two talk over ZeroMQ's IPC
transport: socket files in a directory made for this one sandbox, the only writable place it
shares with the host (its network namespace has no network at all).

Everything the kernel sends is hostile: messages are size-capped by ZeroMQ, the total output
is counted (past the sandbox's output limit the sandbox is killed), comm messages (widgets)
are ignored, and what is kept for the feedback notebook is plain text and PNG images, made
printable and capped. nbclient never starts, restarts or kills this kernel: the session does.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sandbox import protocol

if TYPE_CHECKING:
    import nbformat

    from sandbox.backends import Backend
    from sandbox.session import SandboxSession

# Cells tagged so are not run: the visible tests belong to the harness, not to the notebook.
SKIPPED_TAGS = frozenset({"tests", "hidden-tests"})
SKIP_TAG = "jaxjudge-skip"
# One message from the kernel may be this large at most (ZeroMQ drops larger ones).
MAX_KERNEL_MESSAGE_BYTES = 4 * 2**20
# What the feedback notebook keeps of one cell's outputs, and of a traceback.
MAX_CELL_OUTPUT_CHARS = 16_000
MAX_TRACEBACK_CHARS = 4_000
MAX_IMAGE_CHARS = 512 * 2**10  # of a PNG image, base64-encoded
_BASE64 = re.compile(r"[A-Za-z0-9+/=\n]*")
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


class CellFailed(Exception):
    """A cell of the notebook raised: the run stops there, as Jupyter's "Run All" does."""

    def __init__(self, index: int, first_line: str, error_type: str, error_text: str, traceback: str) -> None:
        self.index = index
        self.first_line = first_line
        self.error_type = error_type
        self.error_text = error_text
        self.traceback = traceback
        super().__init__(f"cell {index + 1} ({first_line}) raised {error_type}: {error_text}")


@dataclass
class KernelConnection:
    """The kernel directory of one sandbox and the connection information for both sides."""

    directory: str
    key: str
    inside: str  # the directory as the sandbox sees it

    @classmethod
    def create(cls, backend: Backend, parent: str | None = None) -> KernelConnection:
        """A new kernel directory: a sandbox of its own, or one in ``parent``, the directory a
        fork server shares (its children find theirs by name)."""
        directory = tempfile.mkdtemp(prefix="jaxjudge-kernel-", dir=parent)
        if backend.kernel_directory_owner is not None:
            os.chown(directory, backend.kernel_directory_owner, backend.kernel_directory_owner)
        if parent is None:
            inside = backend.kernel_mount or directory
        else:
            inside = os.path.join(backend.kernel_mount or parent, os.path.basename(directory))
        connection = cls(directory, secrets.token_hex(32), inside)
        # Written before the sandbox starts: the kernel binds its sockets as it says.
        Path(directory, "connection.json").write_text(json.dumps(connection.info(inside=True)))
        return connection

    def info(self, *, inside: bool = False) -> dict[str, Any]:
        """The connection file's contents, with the sockets' path as one side sees it."""
        return {
            "transport": "ipc",
            "ip": os.path.join(self.inside if inside else self.directory, "kernel"),
            "shell_port": 1,
            "iopub_port": 2,
            "stdin_port": 3,
            "control_port": 4,
            "hb_port": 5,
            "key": self.key,
            "signature_scheme": "hmac-sha256",
            "kernel_name": "python3",
        }

    @property
    def name(self) -> str:
        return os.path.basename(self.directory)

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


@dataclass
class NotebookRun:
    """What running a notebook's cells left: the notebook with its (cleaned) outputs."""

    notebook: nbformat.NotebookNode
    seconds: float = 0.0
    output_bytes: int = 0
    failed: CellFailed | None = field(default=None)


def run_notebook_cells(session: SandboxSession, notebook: nbformat.NotebookNode) -> NotebookRun:
    """Run the code cells of ``notebook`` (not its test cells) on the session's kernel.

    Called while the runtime serves its kernel (the ``notebook`` request); shuts the kernel
    down when the last cell is done, so that the runtime answers that request. Raises
    ``CellFailed`` for a cell that raised, and the session's own errors when it ran out of
    time or output or died (the session is killed then).
    """
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    assert session.kernel is not None, "the sandbox was started without a kernel"
    started = time.monotonic()
    run = NotebookRun(notebook=notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code" and SKIPPED_TAGS & set(cell.get("metadata", {}).get("tags", [])):
            cell.metadata.setdefault("tags", []).append(SKIP_TAG)
    client = _sandboxed_client(session, run)
    try:
        client.execute()
    except CellExecutionError as exc:
        index = _failed_cell_index(notebook)
        raise CellFailed(
            index,
            _first_line(notebook.cells[index].source) if index >= 0 else "",
            _clean(exc.ename, 200),
            _clean(exc.evalue, 2000),
            _clean(str(exc.traceback), MAX_TRACEBACK_CHARS, keep="end"),
        ) from None
    except (CellTimeoutError, TimeoutError):
        raise session.time_out() from None
    except DeadKernelError:
        raise session.crashed() from None
    except KernelOutputExceeded:
        raise session.output_exceeded() from None
    except Exception:
        if not session.alive:
            raise session.crashed() from None
        raise
    finally:
        for cell in notebook.cells:
            if SKIP_TAG in cell.get("metadata", {}).get("tags", []):
                cell.metadata.tags.remove(SKIP_TAG)
        clean_outputs(notebook)
        run.seconds = time.monotonic() - started
    return run


class KernelOutputExceeded(Exception):
    """The kernel sent more output than the sandbox's output limit."""


def _sandboxed_client(session: SandboxSession, run: NotebookRun) -> Any:
    import zmq.asyncio
    from jupyter_client.asynchronous import AsyncKernelClient
    from jupyter_client.manager import AsyncKernelManager
    from jupyter_core.utils import run_sync
    from nbclient import NotebookClient

    assert session.kernel is not None

    class SandboxKernelClient(AsyncKernelClient):
        async def wait_for_ready(self, timeout: float | None = None) -> None:
            """The kernel answers on its shell and IOPub channels: then it is ready.

            jupyter_client's own wait then reads IOPub until it has been silent for 0.2 s,
            which cost every notebook 0.2 s. Nothing needs that silence: nbclient keeps only
            the messages that answer the cell it runs.
            """
            deadline = time.monotonic() + (seconds_left() if timeout is None else timeout)
            while True:
                self.kernel_info()
                with contextlib.suppress(queue.Empty):
                    reply = await self.shell_channel.get_msg(timeout=1)
                    if reply.get("msg_type") == "kernel_info_reply":
                        with contextlib.suppress(queue.Empty):
                            # Something on IOPub too: its subscription is through.
                            await self.iopub_channel.get_msg(timeout=0.2)
                            self._handle_kernel_info_reply(reply)
                            return
                if not session.alive:
                    raise RuntimeError("the kernel died before it answered")
                if time.monotonic() > deadline:
                    raise TimeoutError("the kernel did not answer in time")

    class SandboxKernelManager(AsyncKernelManager):
        """The kernel of a sandbox already started: alive while the sandbox is."""

        @property
        def has_kernel(self) -> bool:
            return True

        async def _async_is_alive(self) -> bool:
            return session.alive

        is_alive = _async_is_alive  # what nbclient asks, and what the kernel client asks

        def client(self, **kwargs: Any) -> Any:
            context = zmq.asyncio.Context()
            # Sockets made from this context refuse messages over the cap (ZeroMQ drops them).
            context.setsockopt(zmq.MAXMSGSIZE, MAX_KERNEL_MESSAGE_BYTES)
            return super().client(context=context, **kwargs)

    class SandboxNotebookClient(NotebookClient):
        def process_message(self, msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
            content = msg.get("content")
            run.output_bytes += len(json.dumps(content, default=str)) if isinstance(content, dict) else 0
            if run.output_bytes > session.limits.output_limit_bytes:
                raise KernelOutputExceeded()
            return super().process_message(msg, cell, cell_index)

        def handle_comm_msg(self, outs: Any, msg: dict[str, Any], cell_index: int) -> None:
            """Widgets are not graded: their messages are ignored."""

        async def async_execute(self, reset_kc: bool = False, **kwargs: Any) -> Any:
            notebook = await super().async_execute(reset_kc=reset_kc, **kwargs)
            # The cells are done: shutting the kernel down ends the runtime's ``notebook``
            # request, which then reports what the cells defined.
            if self.kc is not None:
                self.kc.shutdown()
                # Waiting for the reply also makes sure the request left before the sockets close.
                await self.kc._async_get_control_msg(timeout=seconds_left())
                self.kc.stop_channels()
            return notebook

        execute = run_sync(async_execute)

    manager = SandboxKernelManager(client_factory=SandboxKernelClient)
    manager.load_connection_info(session.kernel.info())  # type: ignore[arg-type]

    def seconds_left(cell: Any = None) -> float:
        # nbclient takes fractions too: the cell that never ends stops at the sandbox's deadline.
        return max(0.1, session.wall_deadline - time.monotonic())

    return SandboxNotebookClient(
        run.notebook,
        km=manager,
        kernel_name="python3",
        timeout_func=seconds_left,
        startup_timeout=max(1, int(seconds_left())),
        skip_cells_with_tag=SKIP_TAG,
        allow_errors=False,
        store_widget_state=False,
        record_timing=False,
        shutdown_kernel="immediate",
    )


def _failed_cell_index(notebook: nbformat.NotebookNode) -> int:
    """The cell whose outputs hold the error (nbclient stops right after it)."""
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and any(out.get("output_type") == "error" for out in cell.get("outputs", [])):
            return index
    return -1


def _first_line(source: str) -> str:
    lines = [line for line in source.splitlines() if line.strip()]
    return _clean(lines[0].strip(), 80) if lines else ""


def _clean(value: Any, limit: int, *, keep: str = "start") -> str:
    """Text from the kernel made printable (no ANSI colours) and capped."""
    text = _ANSI_ESCAPE.sub("", value if isinstance(value, str) else str(value))
    text = protocol.printable(text)
    if len(text) > limit:
        text = "…" + text[-limit:] if keep == "end" else text[:limit] + "…"
    return text


def clean_outputs(notebook: nbformat.NotebookNode) -> None:
    """Keep of every output only printable text, PNG images and errors, capped per cell.

    The outputs came from the student's kernel: HTML or JavaScript in them would run in
    whoever opens the feedback notebook, so they are dropped, and text is made printable.
    """
    import nbformat

    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        kept, budget = [], MAX_CELL_OUTPUT_CHARS
        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if budget <= 0:
                break
            if kind == "stream":
                text = _clean("".join(output.get("text", "")), budget)
                kept.append(nbformat.v4.new_output("stream", name=output.get("name", "stdout"), text=text))
                budget -= len(text)
            elif kind in ("execute_result", "display_data"):
                data = output.get("data", {})
                kept_data = {}
                if isinstance(data.get("text/plain"), str):
                    kept_data["text/plain"] = _clean(data["text/plain"], budget)
                    budget -= len(kept_data["text/plain"])
                image = data.get("image/png")
                if isinstance(image, str) and len(image) <= MAX_IMAGE_CHARS and _BASE64.fullmatch(image):
                    kept_data["image/png"] = image
                if kept_data and kind == "execute_result":
                    kept.append(nbformat.v4.new_output(kind, data=kept_data, execution_count=_count(cell)))
                elif kept_data:
                    kept.append(nbformat.v4.new_output(kind, data=kept_data))
            elif kind == "error":
                traceback = "\n".join(map(str, output.get("traceback", [])))
                kept.append(
                    nbformat.v4.new_output(
                        "error",
                        ename=_clean(output.get("ename", ""), 200),
                        evalue=_clean(output.get("evalue", ""), 2000),
                        traceback=[_clean(traceback, MAX_TRACEBACK_CHARS, keep="end")],
                    )
                )
        cell.outputs = kept
        cell.execution_count = _count(cell)


def _count(cell: nbformat.NotebookNode) -> int | None:
    count = cell.get("execution_count")
    return count if type(count) is int and 0 < count < 10**6 else None
