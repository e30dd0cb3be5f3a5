"""Worker processes of a batch (``grader autograde``, ``grader validate``).

Each worker needs the harness (JAX, pytest, hypothesis: about 1.6 CPU-seconds of imports)
before its first notebook. Workers are forked from multiprocessing's fork server, a fresh process that
imports the harness once, so that a batch of N workers pays for that import once, not N times.
Forking is safe there and only there: that process has started neither JAX's backend nor
any thread of its own, whereas the batch's own process may have done both.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext

from sandbox import JAX_FIRST_USE_MODULES

# The harness, and what a worker's first notebook would otherwise import (0.3 CPU-s of it):
# running notebooks (nbclient, ZeroMQ), JAX's first lowering and transfer, pytest's debugger.
PRELOADED_MODULES = [
    "grader.harness",
    "grader.autograde",
    "grader.assertions",
    "grader.strategies",
    "sandbox.host.prestarted",
    "nbclient",
    "jupyter_client.asynchronous",
    "jupyter_client.manager",
    "zmq.asyncio",
    *JAX_FIRST_USE_MODULES,
    "pdb",
]


def worker_context() -> BaseContext:
    """The multiprocessing context that batches start their workers with."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOADED_MODULES)
    return context
