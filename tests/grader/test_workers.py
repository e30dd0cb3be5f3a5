"""Batch workers start with the harness imported, by a process that imported it once."""

import os
import sys
from concurrent.futures import ProcessPoolExecutor

from grader.workers import worker_context


def what_a_worker_starts_with(_: int) -> tuple[bool, bool, int]:
    import jax._src.xla_bridge as xla_bridge

    return "grader.harness" in sys.modules, bool(xla_bridge._backends), os.getppid()


def test_workers_are_forked_with_the_harness_imported_and_no_jax_backend_started():
    context = worker_context()
    assert context.get_start_method() == "forkserver"
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as executor:
        results = list(executor.map(what_a_worker_starts_with, range(2)))
    assert all(imported for imported, _, _ in results)
    # Forked before any backend started: each worker starts JAX's threads of its own.
    assert not any(backend_started for _, backend_started, _ in results)
    assert os.getpid() not in {parent for _, _, parent in results}, "forked by the fork server, not by this process"
