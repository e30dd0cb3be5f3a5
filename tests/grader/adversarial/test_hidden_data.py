"""Hostile submissions that look for the hidden data: in frames, modules, the heap, the
environment, ``/proc``, the file system and the network."""

from __future__ import annotations

import pytest

from grader.verdicts import Verdict
from tests.grader.adversarial.canary import WA, assert_hostile_submission_fails_safely

pytestmark = pytest.mark.slow  # each submission graded in a sandbox of its own and from a pool

CASES: dict[str, tuple[str, Verdict]] = {
    # -- looking for hidden data ------------------------------------------------------------
    "frames": (
        """
        import sys
        def answer():
            frame = sys._getframe()
            while frame is not None:
                for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
                    if isinstance(value, str) and value.startswith(FOUND):
                        return value
                frame = frame.f_back
            return "nothing"
        """,
        WA,
    ),
    "sys_modules": (
        """
        import sys
        def answer():
            for module in list(sys.modules.values()):
                for value in list(vars(module).values()):
                    if isinstance(value, str) and value.startswith(FOUND):
                        return value
            return "nothing"
        """,
        WA,
    ),
    "garbage_collector": (
        """
        import gc
        def answer():
            for obj in gc.get_objects():
                values = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else ()
                for value in values:
                    if isinstance(value, str) and value.startswith(FOUND) and value != FOUND:
                        return value
            return "nothing"
        """,
        WA,
    ),
    "environment_and_argv": (
        """
        import os, sys
        def answer():
            blob = " ".join(list(os.environ.values()) + sys.argv + sys.orig_argv)
            for path in ["/proc/self/environ", "/proc/1/environ", "/proc/self/cmdline", "/proc/1/cmdline"]:
                try:
                    blob += open(path, "rb").read().decode(errors="replace")
                except OSError:
                    pass
            return blob[blob.index(FOUND):][:18] if FOUND in blob else "nothing"
        """,
        WA,
    ),
    "every_process_in_proc": (
        """
        import os
        def answer():
            blob = b""
            for pid in os.listdir("/proc"):
                for part in ("cmdline", "environ", "maps"):
                    try:
                        blob += open(f"/proc/{pid}/{part}", "rb").read()
                    except OSError:
                        pass
            key = FOUND.encode()
            return blob[blob.index(key):][:18].decode() if key in blob else "nothing"
        """,
        WA,
    ),
    "file_system": (
        """
        import os, sys
        def answer():
            # The interpreter and its packages hold nothing to find (and take long to read).
            installed = (sys.prefix, sys.base_prefix, *(p for p in sys.path if "site-packages" in p))
            for root in ROOTS:
                for folder, _, files in os.walk(root):
                    if folder.startswith(installed):
                        continue
                    for name in files:
                        try:
                            data = open(os.path.join(folder, name), "rb").read(1_000_000)
                        except OSError:
                            continue
                        if FOUND.encode() in data:
                            start = data.index(FOUND.encode())
                            return data[start:start + 18].decode()
            return "nothing"
        """,
        WA,
    ),
    "problems_solutions_and_database": (
        """
        import glob, os
        def answer():
            for pattern in ["problems/*", "solutions/*/*", "*.sqlite3", "db.sqlite3", ".cache/xla/*"]:
                for path in glob.glob(os.path.join(ROOTS[0], pattern)):
                    return open(path).read()[:200]
            return "nothing"
        """,
        WA,
    ),
    "symlink_out_of_the_sandbox": (
        """
        import os
        def answer():
            found = []
            for target in ["/proc/1/root", "/proc/self/root/..", "/proc/1/cwd", "/proc/self/fd/0"]:
                link = "/tmp/link" + str(len(found))
                try:
                    os.symlink(target, link)
                    found += os.listdir(os.path.join(link, ROOTS[0].lstrip("/")))
                except OSError:
                    found.append("-")
            return "nothing" if not any("problems" in f or "solutions" in f for f in found) else str(found)
        """,
        WA,
    ),
    "network_ipv4": (
        """
        import socket
        def answer():
            for host in [("127.0.0.1", 8000), ("10.0.0.1", 80), ("1.1.1.1", 53)]:
                try:
                    socket.create_connection(host, timeout=1).close()
                    return "connected"
                except OSError:
                    pass
            return "nothing"
        """,
        WA,
    ),
    "network_ipv6_and_unix": (
        """
        import socket
        def answer():
            try:
                socket.create_connection(("::1", 8000), timeout=1).close()
                return "connected"
            except OSError:
                pass
            for path in ["/run/docker.sock", "/var/run/docker.sock", "/run/postgresql/.s.PGSQL.5432"]:
                try:
                    socket.socket(socket.AF_UNIX).connect(path)
                    return "connected"
                except OSError:
                    pass
            return "nothing"
        """,
        WA,
    ),
    "shadowed_modules": (
        """
        import os, site, sys
        def answer():
            count = 0
            for folder in ["/tmp", *site.getsitepackages(), os.path.dirname(os.__file__)]:
                planted = [("numpy.py", "raise SystemExit"), ("sitecustomize.py", "x = 1"), ("evil.pth", "import os")]
                for name, code in planted:
                    try:
                        open(os.path.join(folder, name), "w").write(code)
                        count += 1
                    except OSError:
                        pass
            sys.path.insert(0, "/tmp")
            return f"planted {count}"
        """,
        WA,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_submission(canary, short_canary, name, pool):
    code, verdict = CASES[name]
    assert_hostile_submission_fails_safely(code, verdict, canary=canary, short_canary=short_canary, pool=pool)
