"""One source for every version: the sandbox's pins are the project's, and the images install
only from pin files."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)")


def pins(name: str) -> dict[str, str]:
    found = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-r "):
            continue
        match = PIN.match(line)
        assert match, f"{name}: {line!r} is not pinned with =="
        found[re.sub(r"[-_.]+", "-", match[1]).lower()] = match[2]
    return found


def test_every_pin_file_pins_every_line():
    for name in (
        "requirements.txt",
        "requirements-dev.txt",
        "sandbox/requirements-sandbox.txt",
        "sandbox/requirements-gpu.txt",
    ):
        assert pins(name), f"{name} pins nothing"


def test_the_sandbox_runs_the_versions_the_project_pins():
    # bwrap sandboxes run this very environment; the images must hold the same versions.
    project, sandbox = pins("requirements.txt"), pins("sandbox/requirements-sandbox.txt")
    differing = {
        name: (version, project.get(name)) for name, version in sandbox.items() if project.get(name) != version
    }
    assert differing == {}


def test_the_gpu_image_adds_the_cuda_plugin_of_the_same_jax():
    jax, gpu = pins("requirements.txt")["jax"], pins("sandbox/requirements-gpu.txt")
    assert gpu["jax-cuda12-plugin"] == gpu["jax-cuda12-pjrt"] == jax
    assert not set(gpu) & set(pins("sandbox/requirements-sandbox.txt")), "a package pinned twice"


def test_images_install_from_pin_files_only():
    dockerfiles = [ROOT / "Dockerfile", *sorted(ROOT.glob("sandbox/Dockerfile.*")), ROOT / "deploy" / "Dockerfile.gpu"]
    for dockerfile in dockerfiles:
        installs = [line for line in dockerfile.read_text().splitlines() if re.search(r"pip (install|wheel)", line)]
        assert installs, f"{dockerfile.name} installs nothing"
        for line in installs:
            assert "==" not in line and "--no-deps" in line and "-r " in line, f"{dockerfile.name}: {line.strip()}"


def test_the_app_image_installs_only_the_wheels_it_was_given():
    # Built from the pins (here or in the build), then installed with no index: nothing else gets in.
    install = [line for line in (ROOT / "Dockerfile").read_text().splitlines() if "pip install" in line]
    assert install and all("--no-index" in line and "requirements.txt" in line for line in install)
