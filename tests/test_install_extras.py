"""``pip install gec-meta[neural]`` next to a torch that is already installed leaves that torch
in place (issue 26 item 5): the extra declares a range, not the project machines' exact pin.

pip resolves for real (``--dry-run --report``, no index: nothing is downloaded) in a scratch
environment that sees this venv's packages through a ``.pth`` file and holds, ahead of them, a
metadata-only torch ``2.11.0+cu130`` (the CUDA build a GPU machine ships).  The same resolution
with the old pin ``torch==2.13.0`` is the negative control: pip then wants to install torch."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CUDA_TORCH = "2.11.0+cu130"


def _declared_torch() -> str:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    (spec,) = [r for r in extras["neural"] if r.replace(" ", "").startswith("torch")]
    return spec


def test_the_neural_extra_declares_a_torch_range_that_admits_cuda_builds():
    from packaging.requirements import Requirement

    req = Requirement(_declared_torch())
    assert "==" not in str(req.specifier)
    for version in ("2.13.0", "2.13.0+cpu", CUDA_TORCH, "2.1.0"):
        assert req.specifier.contains(version, prereleases=False), version
    assert not req.specifier.contains("3.0.0")


@pytest.fixture(scope="module")
def scratch_env(tmp_path_factory):
    """A venv (no pip of its own) seeing this venv's packages except torch, with a metadata-only
    torch 2.11.0+cu130 installed."""
    root = tmp_path_factory.mktemp("env")
    venv.EnvBuilder(with_pip=False).create(root)
    py = root / "bin" / "python"
    purelib = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    # this venv's packages, all but torch, as links in one folder on the scratch env's path
    view = root / "project-packages"
    view.mkdir()
    for folder in dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"]]):
        for entry in Path(folder).iterdir():
            if not entry.name.lower().startswith(("torch", "functorch")) and not (view / entry.name).exists():
                (view / entry.name).symlink_to(entry)
    (purelib / "zz_project_venv.pth").write_text(f"{view}\n")
    dist = purelib / f"torch-{CUDA_TORCH}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {CUDA_TORCH}\n")
    (dist / "INSTALLER").write_text("pip\n")
    (dist / "RECORD").write_text("")
    return py


def _hermetic_env() -> dict:
    """pip without this machine's configuration (find-links, extra indexes, constraints): it
    sees the installed packages only, so nothing can be fetched."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return {**env, "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}


def _dry_run(py: Path, *requirements: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    report = py.parent.parent / "report.json"
    report.unlink(missing_ok=True)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--dry-run", "--no-index",
         "--no-build-isolation", "--report", str(report), "--quiet", *requirements],
        cwd=cwd, capture_output=True, text=True, timeout=600,
        env=_hermetic_env())
    proc.report = json.loads(report.read_text()) if report.exists() else None
    return proc


@pytest.mark.slow
@pytest.mark.ci
def test_installing_the_neural_extra_keeps_an_installed_cuda_torch(scratch_env):
    seen = subprocess.run([str(scratch_env), "-c", "import importlib.metadata as m; print(m.version('torch'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert seen == CUDA_TORCH  # the environment pip resolves against has the CUDA build
    proc = _dry_run(scratch_env, ".[neural]")
    assert proc.returncode == 0, proc.stderr[-3000:]
    would_install = {item["metadata"]["name"].lower() for item in proc.report["install"]}
    assert "torch" not in would_install and "gec-meta" in would_install, would_install
    # negative control: the former exact pin makes pip replace the installed torch (and, with
    # no index here, fail to find it), while the declared range is satisfied as installed
    pinned = _dry_run(scratch_env, "torch==2.13.0")
    assert pinned.returncode != 0 and "torch" in (pinned.stderr + pinned.stdout).lower()
    declared = _dry_run(scratch_env, _declared_torch())
    assert declared.returncode == 0 and declared.report["install"] == []
    check = subprocess.run([sys.executable, "-m", "pip", "--python", str(scratch_env), "check"],
                           capture_output=True, text=True, timeout=300, env=_hermetic_env())
    assert "torch" not in check.stdout.lower(), check.stdout  # nothing requires another torch
