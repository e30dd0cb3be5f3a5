import pytest

from sandbox import protocol
from sandbox.host.backends import BwrapBackend
from sandbox.host.prestarted import SandboxPool
from tests.conftest import call


def test_sandboxes_are_single_use_and_replaced():
    with SandboxPool(BwrapBackend(), size=1) as pool:
        pool.wait_ready()
        with pool.sandbox() as first:
            first.request(protocol.LOAD, source="import os\nopen('/tmp/mark', 'w').write('x')\n", filename="a.py")
            first_pid = first.process.pid
        assert not first.alive
        with pool.sandbox() as second:
            assert second.process.pid != first_pid
            source = "import os\ndef leftovers():\n    return os.path.exists('/tmp/mark')\n"
            second.request(protocol.LOAD, source=source, filename="b.py")
            op, reply = call(second, "leftovers")
            assert (op, reply["value"]) == ("ok", False)


def test_a_taken_sandbox_is_already_warm():
    with SandboxPool(BwrapBackend(), size=1) as pool:
        pool.wait_ready()
        session = pool.take()
        try:
            assert session._ready is not None  # JAX was imported before anyone asked
        finally:
            session.close()


def test_a_dead_idle_sandbox_is_replaced():
    with SandboxPool(BwrapBackend(), size=1) as pool:
        pool.wait_ready()
        pool._idle[0].close()
        with pool.sandbox() as session:
            assert session.alive
            assert session.request(protocol.LOAD, source="x = 1\n", filename="c.py")[0] == "ok"


def test_a_pool_needs_a_sandbox():
    with pytest.raises(ValueError, match="at least one"):
        SandboxPool(BwrapBackend(), size=0)
