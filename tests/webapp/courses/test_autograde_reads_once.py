"""``manage.py autograde`` reads each handed-in file from disk once: what it records is what it
graded, never the file read again after grading (which may have changed by then).

The reads are counted by the kernel (inotify), since the file is read in a grading worker
process, not in this one. Grading is real: a bwrap sandbox running the notebook under nbclient.
"""

from __future__ import annotations

import ctypes
import os
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from grader.problem import solutions_dir
from webapp.catalog.models import Problem
from webapp.submissions.models import Draft, Submission

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SLUG = "aot_compiled_sum"
IN_CLOSE_NOWRITE = 0x10
IN_OPEN = 0x20
EVENT = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name)


@pytest.fixture
def opens_of() -> Iterator[Callable[[Path], Callable[[], int]]]:
    """``opens_of(path)`` starts counting the opens of ``path`` by any process; calling the
    returned function gives the count so far. Closes are watched too: the kernel merges two
    identical events in a row, and an open then a close are never identical."""
    libc = ctypes.CDLL(None, use_errno=True)
    watch = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    assert watch >= 0, os.strerror(ctypes.get_errno())
    seen = {"opens": 0}

    def count(path: Path) -> Callable[[], int]:
        assert libc.inotify_add_watch(watch, os.fsencode(path), IN_OPEN | IN_CLOSE_NOWRITE) >= 0

        def so_far() -> int:
            while True:
                try:
                    data = os.read(watch, 65536)
                except BlockingIOError:
                    return seen["opens"]
                offset = 0
                while offset < len(data):
                    _, mask, _, name_length = EVENT.unpack_from(data, offset)
                    offset += EVENT.size + name_length
                    seen["opens"] += bool(mask & IN_OPEN)

        return so_far

    yield count
    os.close(watch)


def test_a_handed_in_notebook_is_read_once_and_what_was_graded_is_recorded(
    catalog: None, tmp_path: Path, opens_of: Callable[[Path], Callable[[], int]]
) -> None:
    ada = User.objects.create_user("ada", "ada@example.org", "a-long-password-1")
    code = (solutions_dir() / SLUG / "reference.py").read_text()
    Draft.objects.create(user=ada, problem=Problem.objects.get(slug=SLUG), code=code)
    client = Client()
    client.force_login(ada)
    notebook = tmp_path / "ada.ipynb"
    notebook.write_bytes(client.get(reverse("catalog:notebook", args=[SLUG])).content)
    opens = opens_of(notebook)
    assert opens() == 0

    call_command("autograde", str(notebook), problem=SLUG, student_from="metadata", jobs=1)

    assert opens() == 1
    recorded = Submission.objects.get(user=ada)
    assert recorded.verdict == "accepted", recorded.report
    assert code in recorded.code and recorded.notebook
