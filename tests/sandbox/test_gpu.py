"""The GPU path up to the device: routing, device nodes and driver in bwrap, JAX told to use it.

These machines have no GPU, so the host's GPU paths are given to the backend as a list; the
commands are what a GPU host would run. The GPU itself is exercised only where one is lent.
"""

import pytest

from sandbox.host.backends import BackendUnavailable, BwrapBackend, SandboxLimits, gpu_host_paths

FAKE_GPU_PATHS = ["/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm", "/usr/local/nvidia/lib64/libcuda.so.1"]


def test_device_nodes_are_bound_as_devices_and_the_driver_read_only():
    command = BwrapBackend("gpu", gpu_paths=FAKE_GPU_PATHS).command(SandboxLimits())
    for device in FAKE_GPU_PATHS[:3]:
        at = command.index(device)
        assert command[at - 1] == "--dev-bind" and command[at + 1] == device
    at = command.index(FAKE_GPU_PATHS[3])
    assert command[at - 1] == "--ro-bind"
    env = {command[i + 1]: command[i + 2] for i, arg in enumerate(command) if arg == "--setenv"}
    assert env["JAX_PLATFORMS"] == "cuda" and env["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"


def test_a_cpu_sandbox_gets_no_gpu():
    command = BwrapBackend("cpu", gpu_paths=FAKE_GPU_PATHS).command(SandboxLimits())
    assert not any(arg.startswith("/dev/nvidia") for arg in command)
    assert "--dev-bind" not in command


@pytest.mark.skipif(bool(gpu_host_paths()), reason="this host has a GPU")
def test_a_gpu_sandbox_on_a_host_without_gpu_is_refused_clearly():
    with pytest.raises(BackendUnavailable, match="this host has no NVIDIA GPU"):
        BwrapBackend("gpu")
