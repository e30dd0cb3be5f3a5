"""Where this process's CPU time goes, stage by stage: what a batch's breakdown is made of
(``grader autograde --timings``), never anything a verdict depends on.

Each stage adds up the CPU seconds spent inside it, by the clock given: the whole process's
(``time.process_time``, every thread) for work done on the grading's own thread, or the
calling thread's (``time.thread_time``) for work that runs in a thread of its own beside the
sandbox's (the reference's anticipated answers), so that nothing is counted twice.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# The stages the grader marks, as a batch's breakdown names them.
READING_STAGE = "reading the notebook"
REFERENCE_STAGE = "the reference's answers"
INSIGHT_STAGE = "the insight"
FEEDBACK_STAGE = "the feedback notebook"

_spent: dict[str, float] = {}
_lock = threading.Lock()
_open = threading.local()  # this thread's stages under way, innermost last


@contextmanager
def stage(name: str, clock: Callable[[], float] = time.process_time) -> Iterator[None]:
    """Add the CPU seconds ``clock`` counts while the block runs to stage ``name``; a stage
    opened inside another (on the same thread) takes its seconds out of the outer one's."""
    stack: list[list[float]] = _open.__dict__.setdefault("stack", [])
    frame = [0.0]  # the seconds of the stages opened inside this one
    stack.append(frame)
    started = clock()
    try:
        yield
    finally:
        elapsed = clock() - started
        stack.pop()
        if stack:
            stack[-1][0] += elapsed
        with _lock:
            _spent[name] = _spent.get(name, 0.0) + max(0.0, elapsed - frame[0])


def spent() -> dict[str, float]:
    """Every stage's CPU seconds so far in this process (take two and subtract for one grading)."""
    with _lock:
        return dict(_spent)


def since(before: dict[str, float]) -> dict[str, float]:
    """The CPU seconds of each stage since ``before`` (an earlier ``spent()``)."""
    now = spent()
    return {name: now[name] - before.get(name, 0.0) for name in now if now[name] - before.get(name, 0.0) > 0}


def process_cpu_seconds(pid: int) -> float | None:
    """The CPU seconds another process of this machine has used (user and system), from
    ``/proc``; None where it cannot be read."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rpartition(")")[2].split()
    except OSError:
        return None
    # After the command's name: state is field 3 of stat(5), utime and stime fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
