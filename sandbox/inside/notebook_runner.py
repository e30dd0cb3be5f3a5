"""Inside the sandbox: a notebook's cells run as Jupyter runs them, wholly in here.

nbclient plays Jupyter's part from a thread of the runtime's own process, driving the IPython
kernel that the runtime serves on its main thread (``kernel.Kernel``), over ZeroMQ sockets
in this sandbox's private ``/tmp``. The host never speaks to the kernel: every message the
kernel sends, on every channel and with whatever parent, is read and judged in here, within
the sandbox's memory, time and CPU limits. What leaves is one reply of the runtime's protocol
(the cells' outputs through ``cell_outputs``' allow-list, and how the run ended), which the
host checks again: this thread runs beside the student's code and is as untrusted as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import time
from typing import Any

import nbformat
import zmq.asyncio
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellControlSignal, CellExecutionError

from sandbox import protocol
from sandbox.cell_outputs import OutputBudget, clean_outputs, clean_text, execution_count

# One message from the kernel may be this large at most (ZeroMQ drops larger ones).
MAX_KERNEL_MESSAGE_BYTES = 4 * 2**20
# How long the kernel may take to answer its first request (it is prepared in advance).
STARTUP_SECONDS = 60.0


def warm_up() -> None:
    """What a notebook's run would otherwise pay first, paid while the sandbox waits (and
    once in a fork server, for all its children): nbformat's compiled schema validator, and
    a first instance of each of the runner's classes (traitlets sets much up on the first)."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x")])
    notebook.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x")]
    nbformat.validate(notebook)
    RunnerNotebookClient(notebook, km=RunnerKernelManager(client_factory=RunnerKernelClient))


class OutputExceeded(Exception):
    """The kernel sent more than the sandbox's output limit."""


def run_cells(connection_file: str, sources: list[str], output_limit: int) -> dict[str, Any]:
    """Run ``sources`` as the code cells of a notebook on the kernel of ``connection_file``.

    Returns the ``notebook`` reply's run fields: ``cells`` (each cell's cleaned outputs and
    execution count, for the cells that ran), ``failed`` (the cell that raised: its index,
    error type, text and traceback) or ``error`` (the run itself broke, for instance on a
    message the kernel forged), and ``output_exceeded``.
    """
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    counter = _OutputCounter(output_limit)
    failed: dict[str, Any] | None = None
    error = ""
    try:
        asyncio.run(_client(notebook, connection_file, counter).async_execute())
    except CellExecutionError as exc:
        index = next(
            (n for n, cell in enumerate(notebook.cells) if any(o.get("output_type") == "error" for o in cell.outputs)),
            -1,
        )
        failed = {
            "cell": index,
            "ename": clean_text(exc.ename, 200),
            "evalue": clean_text(exc.evalue, 2000),
            "traceback": clean_text(str(exc.traceback), 4000, keep="end"),
        }
    except OutputExceeded:
        pass
    except Exception as exc:  # whatever the kernel sent that Jupyter could not take
        error = clean_text(f"{type(exc).__name__}: {exc}", 2000)
    budget = OutputBudget()
    cells = [
        {"outputs": clean_outputs(cell.outputs, budget), "execution_count": execution_count(cell.execution_count)}
        for cell in notebook.cells
    ]
    return {
        protocol.NOTEBOOK_CELLS: cells,
        protocol.NOTEBOOK_FAILED: failed,
        protocol.NOTEBOOK_ERROR: error,
        protocol.NOTEBOOK_OUTPUT_EXCEEDED: counter.exceeded,
    }


class _OutputCounter:
    """Counts every byte the kernel sends against the output limit."""

    def __init__(self, limit: int) -> None:
        self.limit, self.total, self.exceeded = limit, 0, False

    def add_bytes(self, count: int) -> None:
        self.total += count
        if self.total > self.limit:
            self.exceeded = True
            raise OutputExceeded()


# The run's counter: one notebook a process, so one counter, set as the run starts.
_counter = _OutputCounter(0)


class CountedChannel(AsyncZMQSocketChannel):
    """A channel that counts every byte the kernel sends on it, and drops the messages
    Jupyter's session refuses (a wrong signature, a replay, a malformed header): those are
    not this kernel's, and a forged message must not break the run."""

    async def get_msg(self, timeout: float | None = None) -> dict[str, Any]:  # type: ignore[override]
        assert self.socket is not None
        while True:
            if not await self.socket.poll(None if timeout is None else int(timeout * 1000)):
                raise queue.Empty()
            frames = await self.socket.recv_multipart()
            _counter.add_bytes(sum(len(frame) for frame in frames))
            try:
                _, signed = self.session.feed_identities(frames)
                message = self.session.deserialize(signed)
            except Exception:
                continue
            if isinstance(message, dict) and isinstance(message.get("content"), dict):
                return message


class RunnerKernelClient(AsyncKernelClient):
    iopub_channel_class = CountedChannel
    shell_channel_class = CountedChannel
    control_channel_class = CountedChannel

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        """The kernel answers on its shell and IOPub channels: then it is ready.

        jupyter_client's own wait then reads IOPub until it has been silent for 0.2 s,
        which cost every notebook 0.2 s. Nothing needs that silence: nbclient keeps only
        the messages that answer the cell it runs.
        """
        deadline = time.monotonic() + STARTUP_SECONDS
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
            if time.monotonic() > deadline:
                raise TimeoutError("the kernel did not answer in time")


class RunnerKernelManager(AsyncKernelManager):
    """The kernel of this process, serving already: nothing to start, restart or kill."""

    @property
    def has_kernel(self) -> bool:
        return True

    async def _async_is_alive(self) -> bool:
        return True

    is_alive = _async_is_alive  # what nbclient asks, and what the kernel client asks

    def client(self, **kwargs: Any) -> Any:
        context = zmq.asyncio.Context()
        # Sockets made from this context refuse messages over the cap (ZeroMQ drops them).
        context.setsockopt(zmq.MAXMSGSIZE, MAX_KERNEL_MESSAGE_BYTES)
        return super().client(context=context, **kwargs)


class RunnerNotebookClient(NotebookClient):
    def process_message(self, msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
        """A message nbclient cannot take (a display of a number, a ``transient`` that is
        not a dict) is output that cannot be shown: dropped, as Jupyter's page would."""
        try:
            return super().process_message(msg, cell, cell_index)
        except CellControlSignal:  # how nbclient says a cell is done
            raise
        except Exception:
            return None

    def handle_comm_msg(self, outs: Any, msg: dict[str, Any], cell_index: int) -> None:
        """Widgets are not graded: their messages are ignored."""


def _client(notebook: Any, connection_file: str, counter: _OutputCounter) -> Any:
    global _counter
    _counter = counter
    manager = RunnerKernelManager(client_factory=RunnerKernelClient)
    manager.load_connection_file(connection_file)
    # No per-cell time limit here: the host kills the whole sandbox at its deadline.
    return RunnerNotebookClient(
        notebook,
        km=manager,
        kernel_name="python3",
        timeout=None,
        startup_timeout=int(STARTUP_SECONDS),
        allow_errors=False,
        store_widget_state=False,
        record_timing=False,
    )
