"""gec-meta works installed from its wheel, outside any checkout (issue 16).

* the package list in pyproject.toml names every package folder (it is explicit because the
  top-level ``conf/`` ships as ``gec_meta.conf``);
* the wheel carries the configs, the prompt templates and the data manifest;
* (slow, CI) the wheel installed with its dependencies into a fresh venv runs, from a folder
  outside the checkout: ``gec-meta data`` (from the mirror, into the per-user data folder),
  ``gec-meta score`` (the official CoNLL-2014 F0.5 of AMU, 0.3501), ``gec-meta-run`` (ERRANT +
  TrueSkill on SEEDA Base: TS_edit r 0.881, rho 0.895, "Rethinking" Table 1) and the Python API.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MIRROR = REPO.parent / "shared" / "data"


def _declared_packages() -> list[str]:
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return cfg["tool"]["setuptools"]["packages"]


def test_every_package_folder_is_declared():
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "gec_meta").rglob("__init__.py")}
    found |= {".".join(("gec_meta", *d.relative_to(REPO).parts)) for d in [REPO / "conf", *(REPO / "conf").rglob("*")]
              if d.is_dir() and d.name != "__pycache__"}
    assert sorted(found) == sorted(_declared_packages())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the tracked sources (a checkout's build/ folder could
    otherwise leak modules that no longer exist into the wheel)."""
    src = tmp_path_factory.mktemp("src")
    files = subprocess.run(["git", "ls-files", "pyproject.toml", "README.md", "gec_meta", "conf"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split()
    for rel in files:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, src / rel)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    str(src), "-w", str(out)], check=True, cwd=out)
    (whl,) = out.glob("gec_meta-*.whl")
    return whl


def test_wheel_carries_configs_prompts_and_manifest(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    conf_files = {p.relative_to(REPO / "conf").as_posix() for p in (REPO / "conf").rglob("*")
                  if p.is_file() and p.suffix in {".yaml", ".txt", ".md", ".py"}}
    assert conf_files and {f"gec_meta/conf/{f}" for f in conf_files} <= names
    assert "gec_meta/data/manifest.tsv" in names
    assert {"gec_meta/report/assets/page.js", "gec_meta/report/assets/page.css"} <= names  # the HTML page
    assert not any(n.startswith(("conf/", "tests/", "experiments/")) for n in names)
    tracked = {f"{p}" for p in subprocess.run(["git", "ls-files", "gec_meta"], cwd=REPO, capture_output=True,
                                                text=True, check=True).stdout.split() if p.endswith(".py")}
    assert {n for n in names if n.startswith("gec_meta/") and n.endswith(".py")
            and not n.startswith("gec_meta/conf/")} == tracked


def _run(cmd: list[str], cwd: Path, env: dict, timeout: int = 900) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.skipif(not MIRROR.is_dir(), reason=f"no data mirror at {MIRROR}")
def test_installed_wheel_works_outside_the_checkout(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    # No pip of its own (ensurepip: seconds): this venv's pip installs into it (--python).
    venv.create(env_dir, with_pip=False)
    bin_dir = env_dir / "bin"
    env = {k: v for k, v in os.environ.items()
           if k not in ("GEC_META_DATA", "GEC_META_MIRROR", "PYTHONPATH", "VIRTUAL_ENV")}
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "xdg"),
               GEC_META_CACHE=str(tmp_path / "cache"), PIP_DISABLE_PIP_VERSION_CHECK="1",
               # pip's own download cache stays where it is (a fresh HOME would download again)
               PIP_CACHE_DIR=os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip")))
    # --no-compile: no byte-compiling of every installed module (most of an install's CPU time);
    # the commands below compile what they import, as a user's first run does.
    _run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "--quiet", "--no-compile",
          str(wheel)], tmp_path, env, timeout=1500)
    work = tmp_path / "elsewhere"
    work.mkdir()

    # The benchmarks into the per-user folder (no GEC_META_DATA, no ./data here).
    _run([str(bin_dir / "gec-meta"), "data", "--mirror", str(MIRROR), "--no-progress"], work, env)
    data = tmp_path / "xdg" / "gec-meta"
    assert (data / "seeda").is_dir() and (data / "conll14" / "conll14st-test.m2").is_file()

    subs = data / "gjg15" / "original" / "official_submissions"
    out = _run([str(bin_dir / "gec-meta"), "score", "--src", str(data / "conll14" / "conll14st-test.tok.src"),
                "--hyp", str(subs / "AMU"), "--ref", str(data / "conll14" / "conll14st-test.m2"),
                "--metric", "m2"], work, env)
    assert "0.3501" in out  # the official CoNLL-2014 F0.5 of AMU (m2scorer; GJG15 Table 3a)

    _run([str(bin_dir / "gec-meta-run"), "dataset=seeda", "metric=errant", "aggregation=trueskill",
          "hydra.run.dir=run"], work, env)
    result = json.loads((work / "run" / "results.json").read_text(encoding="utf-8"))
    # "Rethinking" (Goto et al. 2025) Table 1, ERRANT with TrueSkill, SEEDA-E (TS_edit).
    assert round(result["system"]["TS_edit"]["pearson"], 3) == 0.881
    assert round(result["system"]["TS_edit"]["spearman"], 3) == 0.895

    api = _run([str(bin_dir / "python"), "-c",
                "from gec_meta import load_metric; m = load_metric('errant'); print(m.signature())"], work, env)
    assert api.startswith("errant(")
