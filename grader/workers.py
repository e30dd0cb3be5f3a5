"""Worker processes of a batch (``grader autograde``, ``grader validate``).

Each worker imports the harness (JAX, pytest, hypothesis: about 1.6 CPU-seconds) before its
first notebook. Workers are forked from multiprocessing's fork server, a fresh process that
imports the harness once, so that a batch of N workers pays for that import once, not N times.
Forking is safe there and only there: that process has started neither JAX's backend nor
any thread of its own, whereas the batch's own process may have done both.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext

PRELOADED_MODULES = ["grader.harness"]


def worker_context() -> BaseContext:
    """The multiprocessing context that batches start their workers with."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOADED_MODULES)
    return context
