"""How a grading worker shows it is alive, and outlasts a database that goes away for a moment.

A worker names itself ``host:pid``. While it grades, a thread beats the submission's heartbeat
every few seconds; another worker takes a submission over once that beat has been silent for
``STALLED_AFTER_S``. Writes that matter (a verdict) are tried again while the database is
unreachable, up to that same time: past it another worker has taken over anyway.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

HEARTBEAT_S = 2.0
DATABASE_RETRY_S = 1.0
WORKER_NAME = f"{socket.gethostname()}:{os.getpid()}"
T = TypeVar("T")


@contextmanager
def beating(beat: Callable[[], object], name: str, *, every: float = HEARTBEAT_S) -> Iterator[None]:
    """Call ``beat()`` every ``every`` seconds, in a thread, while the block runs."""
    stop = threading.Event()

    def run() -> None:
        try:
            while not stop.wait(every):
                try:
                    beat()
                except DatabaseError:  # a locked or restarting database, say: the next beat will do
                    logger.warning("%s: heartbeat not recorded", name, exc_info=True)
                    connection.close()  # broken: the next beat opens a new one
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=run, name=f"heartbeat-{name}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def outlasting_database_outages(write: Callable[[], T], what: str) -> T:
    """``write()``, tried again while the database is unreachable (restarting, failing over).

    A grading is seconds of work: losing its verdict to a database restart would make another
    worker do it all again. Past the stall time another worker takes the submission over anyway
    (and the attempt fence then refuses this write), so trying longer would gain nothing.
    """
    deadline = time.monotonic() + settings.STALLED_AFTER_S
    while True:
        try:
            return write()
        except (OperationalError, InterfaceError):
            connection.close()  # broken: the next try opens a new one
            if time.monotonic() > deadline:
                raise
            logger.warning("%s could not be written yet: the database is unreachable", what)
            time.sleep(DATABASE_RETRY_S)
