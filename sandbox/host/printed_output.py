"""What a submission prints, as the trusted side keeps it: capped, and in parts by who may read it.

A sandbox's stdout and stderr share one pipe (the runtime's channel has fds of its own). It is
read to its end in a thread of its own, so that a chatty submission never blocks on a full
pipe, and every byte counts towards the output limit; what is kept is capped per part: what was
printed before hidden tests ran (shown to the student), what was printed while they ran (staff
only), and nothing of what was printed while the platform asked for itself (the insight).
"""

from __future__ import annotations

import fcntl
import os
import struct
import termios
import threading
import time
from collections.abc import Callable
from typing import IO

from sandbox import protocol


class PrintedOutput:
    """The reader of one sandbox's output pipe, and what it kept.

    ``kept_bytes`` is kept of each part; past ``limit_bytes`` in all, ``stop`` is called (it
    kills the sandbox) and ``exceeded`` is set.
    """

    def __init__(self, pipe: IO[bytes], *, kept_bytes: int, limit_bytes: int, stop: Callable[[], None]) -> None:
        self.pipe = pipe
        self.kept_bytes = kept_bytes
        self.limit_bytes = limit_bytes
        self.stop = stop
        self.exceeded = False
        self._visible = bytearray()
        self._hidden = bytearray()
        self._total = 0
        self._hidden_total = 0
        self._discarded_total = 0
        self._printing_hidden = False
        self._discarding = False
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    @property
    def visible(self) -> str:
        """What was printed before hidden tests ran, as printable text."""
        return protocol.printable(self._visible.decode("utf-8", errors="replace"))

    @property
    def hidden(self) -> str:
        """What was printed from ``start_hidden`` on, as printable text."""
        return protocol.printable(self._hidden.decode("utf-8", errors="replace"))

    @property
    def truncated(self) -> bool:
        """Whether the visible part lost bytes to its cap."""
        return self._total - self._hidden_total - self._discarded_total > len(self._visible)

    def start_hidden(self) -> None:
        """From now on, what is printed is hidden output (and no longer discarded).

        What is still in the pipe is waited for briefly first: output of the visible tests may
        arrive late and then counts as hidden, but never the other way round.
        """
        self._settle()
        with self._lock:
            self._printing_hidden = True
            self._discarding = False

    def discard(self) -> None:
        """From now on, what is printed is kept for nobody (it still counts towards the limit)."""
        self._settle()
        with self._lock:
            self._discarding = True

    def wait_closed(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the pipe's last bytes (the sandbox is gone)."""
        self._reader.join(timeout=timeout)

    def _settle(self) -> None:
        """Wait briefly for what is already in the pipe to be read into its current part."""
        try:
            raw = fcntl.ioctl(self.pipe.fileno(), termios.FIONREAD, b"\0\0\0\0")
            pending = struct.unpack("i", raw)[0]
        except (OSError, ValueError):  # the sandbox is gone and its pipe closed: nothing pending
            pending = 0
        target, deadline = self._total + pending, time.monotonic() + 0.2
        while self._total < target and time.monotonic() < deadline and self._reader.is_alive():
            time.sleep(0.002)

    def _drain(self) -> None:
        fd = self.pipe.fileno()
        # Keep reading past the cap so that a chatty submission never blocks on a full pipe.
        for chunk in iter(lambda: os.read(fd, 65536), b""):
            with self._lock:
                self._total += len(chunk)
                if self._discarding:
                    self._discarded_total += len(chunk)
                elif self._printing_hidden:
                    self._hidden_total += len(chunk)
                kept = self._hidden if self._printing_hidden else self._visible
                room = self.kept_bytes - len(kept)
                if room > 0 and not self._discarding:
                    kept += chunk[:room]
            if self._total > self.limit_bytes and not self.exceeded:
                self.exceeded = True
                self.stop()
        self.pipe.close()
