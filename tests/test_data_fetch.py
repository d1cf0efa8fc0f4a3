"""Tests of the data installer (``gec_meta.data.fetch``), on a tiny mirror built per test.

No test touches the network: mirror tests pass their mirror explicitly (never the default
``../shared/data``), and "online" tests download from a ``file://`` tree laid out like
``raw.githubusercontent.com``.
"""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest

from gec_meta.data import fetch, verify

COMMIT = "0123456789abcdef0123456789abcdef01234567"
FILES = {
    "alpha/one.txt": b"first line\nsecond line\n",
    "alpha/deep/two": b"no final newline",
    "beta/three.tsv": b"system\tscore\nAMU\t0.5\n",
}
GZ_UPSTREAM = {"beta/three.tsv"}
DERIVED_PATH = "seeda/readme_metric_scores.tsv"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _source(rel: str) -> str:
    suffix = ".gz" if rel in GZ_UPSTREAM else ""
    return f"github:owner/repo@{COMMIT}:up/{rel}{suffix}"


def _write_manifest(path: Path, files: dict[str, bytes], derived: bool = False) -> Path:
    lines = [f"{rel}\t{_sha(data)}\t{len(data)}\t{_source(rel)}" for rel, data in files.items()]
    if derived:
        table = fetch.DERIVED_TABLES[DERIVED_PATH]
        lines.append(f"{DERIVED_PATH}\t{_sha(table)}\t{len(table)}\tderived")
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def tiny(tmp_path: Path) -> dict[str, Path]:
    """A mirror with FILES, its manifest, and an empty destination path."""
    mirror = tmp_path / "mirror"
    for rel, data in FILES.items():
        (mirror / rel).parent.mkdir(parents=True, exist_ok=True)
        (mirror / rel).write_bytes(data)
    manifest = _write_manifest(tmp_path / "manifest.tsv", FILES)
    return {"mirror": mirror, "manifest": manifest, "dest": tmp_path / "data"}


def _fetch(tiny: dict[str, Path], **kwargs) -> fetch.FetchReport:
    kwargs.setdefault("mirror", tiny["mirror"])
    return fetch.fetch_data(tiny["dest"], manifest_path=tiny["manifest"],
                            use_default_mirror=False, progress=False, **kwargs)


def _cli(tiny: dict[str, Path], *extra: str) -> int:
    return fetch.main(["--dest", str(tiny["dest"]), "--manifest", str(tiny["manifest"]),
                       "--no-progress", *extra])


def test_copy_and_verify(tiny):
    report = _fetch(tiny)
    assert report.ok, report.problems
    assert (report.copied, report.present, report.total) == (3, 0, 3)
    for rel, data in FILES.items():
        assert (tiny["dest"] / rel).read_bytes() == data
    assert verify.verify_data_dir(tiny["dest"], tiny["manifest"]) == []
    marker = (tiny["dest"] / verify.MARKER_NAME).read_text().strip()
    assert marker == _sha(tiny["manifest"].read_bytes())
    assert verify.is_marked_complete(tiny["dest"], tiny["manifest"])
    assert not list(tiny["dest"].rglob("*.tmp"))


def test_rerun_skips_present_files(tiny):
    _fetch(tiny)
    target = tiny["dest"] / "alpha/one.txt"
    before = target.stat()
    report = _fetch(tiny)
    assert report.ok
    assert (report.copied, report.present) == (0, 3)
    after = target.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_corrupted_file_is_named_and_repaired(tiny, capsys):
    _fetch(tiny)
    bad = tiny["dest"] / "beta/three.tsv"
    bad.write_bytes(b"system\tscore\nAMU\t0.9\n")  # same size, different content
    problems = verify.verify_data_dir(tiny["dest"], tiny["manifest"])
    assert len(problems) == 1
    assert problems[0].startswith(f"{bad}: sha256 mismatch (expected ")
    assert "re-run make data" in problems[0]
    assert _cli(tiny, "--verify-only") == 1
    assert str(bad) in capsys.readouterr().err
    assert not verify.is_marked_complete(tiny["dest"], tiny["manifest"])
    report = _fetch(tiny)
    assert (report.ok, report.copied, report.present) == (True, 1, 2)
    assert bad.read_bytes() == FILES["beta/three.tsv"]


def test_missing_file_is_named(tiny):
    _fetch(tiny)
    gone = tiny["dest"] / "alpha/deep/two"
    gone.unlink()
    assert verify.verify_data_dir(tiny["dest"], tiny["manifest"]) == [
        f"{gone}: missing; re-run make data"]


def test_verify_only_copies_nothing(tiny, capsys):
    assert _cli(tiny, "--verify-only", "--mirror", str(tiny["mirror"])) == 1
    err = capsys.readouterr().err
    for rel in FILES:
        assert f"{tiny['dest'] / rel}: missing" in err
    assert not tiny["dest"].exists()
    _fetch(tiny)
    assert _cli(tiny, "--verify-only") == 0
    assert "3 of 3 files verified" in capsys.readouterr().out


def test_corrupt_mirror_file_is_not_installed(tiny):
    (tiny["mirror"] / "alpha/one.txt").write_bytes(b"tampered\n")
    report = _fetch(tiny)
    assert not report.ok
    [problem] = report.problems
    assert problem.startswith(f"{tiny['dest'] / 'alpha/one.txt'}: mirror copy ")
    assert str(tiny["mirror"] / "alpha/one.txt") in problem
    assert not (tiny["dest"] / "alpha/one.txt").exists()
    assert not (tiny["dest"] / verify.MARKER_NAME).exists()
    assert not list(tiny["dest"].rglob("*.tmp"))


def test_file_missing_from_mirror_is_named(tiny):
    (tiny["mirror"] / "alpha/deep/two").unlink()
    report = _fetch(tiny)
    assert report.problems == [
        f"{tiny['dest'] / 'alpha/deep/two'}: not in mirror (looked for "
        f"{tiny['mirror'] / 'alpha/deep/two'}); re-run make data"]


def _raw_tree(root: Path) -> str:
    """Lay FILES out like raw.githubusercontent.com (gzip where upstream is .gz)."""
    for rel, data in FILES.items():
        target = root / "owner/repo" / COMMIT / "up" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel in GZ_UPSTREAM:
            target.with_name(target.name + ".gz").write_bytes(gzip.compress(data))
        else:
            target.write_bytes(data)
    return root.as_uri()


def test_download_decompresses_and_writes_derived(tiny, tmp_path):
    _write_manifest(tiny["manifest"], FILES, derived=True)
    base = _raw_tree(tmp_path / "raw")
    report = _fetch(tiny, mirror=None, base_url=base)
    assert report.ok, report.problems
    assert (report.downloaded, report.derived, report.copied) == (3, 1, 0)
    assert (tiny["dest"] / "beta/three.tsv").read_bytes() == FILES["beta/three.tsv"]
    assert (tiny["dest"] / DERIVED_PATH).read_bytes() == fetch.DERIVED_TABLES[DERIVED_PATH]
    assert verify.verify_data_dir(tiny["dest"], tiny["manifest"]) == []


def test_download_of_wrong_content_is_named(tiny, tmp_path):
    base = _raw_tree(tmp_path / "raw")
    (tmp_path / "raw/owner/repo" / COMMIT / "up/alpha/one.txt").write_bytes(b"changed\n")
    report = _fetch(tiny, mirror=None, base_url=base, jobs=1)
    assert not report.ok
    assert any(p.startswith(f"{tiny['dest'] / 'alpha/one.txt'}: downloaded ")
               and "sha256 mismatch" in p for p in report.problems)


def test_no_mirror_and_no_network_is_a_clear_error(tiny, tmp_path, capsys):
    offline = (tmp_path / "nowhere").as_uri()
    assert _cli(tiny, "--no-mirror", "--base-url", offline) == 2
    err = capsys.readouterr().err
    assert "no local mirror" in err and "--mirror" in err
    with pytest.raises(fetch.NoSourceError):
        fetch.resolve_mirror(tmp_path / "no-such-mirror")


OPTIONAL_FILE = ("gamma/optional.txt", b"only one dataset reads me\n")


def _with_optional(tiny: dict[str, Path]) -> str:
    """Add OPTIONAL_FILE to the manifest as ``optional`` (not to the mirror)."""
    rel, data = OPTIONAL_FILE
    with open(tiny["manifest"], "a", encoding="utf-8") as fh:
        fh.write(f"{rel}\t{_sha(data)}\t{len(data)}\t{_source(rel)}\toptional\n")
    return rel


def test_optional_file_absent_offline_does_not_fail(tiny, tmp_path, capsys):
    """An optional file (the Pillars-of-GEC outputs) that the mirror lacks is tried online; offline
    it is named in the summary and the installation still succeeds (exit 0, marker written)."""
    rel = _with_optional(tiny)
    [entry] = [e for e in verify.load_manifest(tiny["manifest"]) if e.optional]
    assert entry.path == rel
    offline = (tmp_path / "nowhere").as_uri()
    assert _cli(tiny, "--mirror", str(tiny["mirror"]), "--base-url", offline) == 0
    out = capsys.readouterr().out
    assert "3 copied" in out and "1 optional file(s) absent" in out and str(tiny["dest"] / rel) in out
    assert verify.is_marked_complete(tiny["dest"], tiny["manifest"])
    assert verify.verify_data_dir(tiny["dest"], tiny["manifest"]) == []  # absent optional: no problem
    (tiny["dest"] / rel).parent.mkdir(parents=True)
    (tiny["dest"] / rel).write_bytes(b"tampered\n")  # present but wrong: a problem like any file
    [problem] = verify.verify_data_dir(tiny["dest"], tiny["manifest"])
    assert problem.startswith(f"{tiny['dest'] / rel}: sha256 mismatch")


def test_optional_file_is_downloaded_when_online(tiny, tmp_path):
    rel = _with_optional(tiny)
    base = _raw_tree(tmp_path / "raw")
    up = tmp_path / "raw/owner/repo" / COMMIT / "up" / rel
    up.parent.mkdir(parents=True)
    up.write_bytes(OPTIONAL_FILE[1])
    report = _fetch(tiny, base_url=base)
    assert report.ok and not report.optional_missing, report.problems
    assert (report.copied, report.downloaded) == (3, 1)
    assert (tiny["dest"] / rel).read_bytes() == OPTIONAL_FILE[1]


def test_optional_field_is_checked(tmp_path):
    bad = tmp_path / "manifest.tsv"
    bad.write_text(f"ok/file\t{'0' * 64}\t3\tderived\tmaybe\n")
    with pytest.raises(verify.ManifestError, match=r"manifest.tsv:1: the fifth field must be 'optional'"):
        verify.load_manifest(bad)


def test_manifest_errors_name_the_line(tmp_path):
    bad = tmp_path / "manifest.tsv"
    bad.write_text(f"ok/file\t{'0' * 64}\t3\tderived\n../escape\t{'0' * 64}\t3\tderived\n")
    with pytest.raises(verify.ManifestError, match=r"manifest.tsv:2: unsafe path"):
        verify.load_manifest(bad)


def test_default_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv(fetch.ENV_DATA_DIR, str(tmp_path / "elsewhere"))
    assert fetch.default_data_dir() == tmp_path / "elsewhere"
    monkeypatch.delenv(fetch.ENV_DATA_DIR)
    # No data/ in the working directory: the per-user folder, wherever the package lives.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert fetch.default_data_dir() == tmp_path / "xdg" / "gec-meta"
    (tmp_path / "data").mkdir()
    assert fetch.default_data_dir() == Path("data")


def test_default_mirror_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(fetch.ENV_MIRROR_DIR, raising=False)
    assert fetch.resolve_mirror(None) is None
    monkeypatch.setenv(fetch.ENV_MIRROR_DIR, str(tmp_path))
    assert fetch.resolve_mirror(None) == tmp_path
    assert fetch.resolve_mirror(None, use_default=False) is None


def test_real_manifest_is_well_formed():
    entries = verify.load_manifest()
    # 1025 + the 16 CLEME example files (issue 19 item 7) + GMEG FCE (2 splits x (12 texts + 2
    # CSVs)) + the 4 Yahoo CSVs + the 8 attack files (issue 25; mirror README: 1,081 data
    # files) + 12 optional Pillars-of-GEC files (10 systems, bea-dev.txt, bea-dev.m2).
    # + ostling/ (48) and multigec/ (11) (issue 31 items 4-5) + the 23
    # Chinese files that dataset=revisit_cgec and ChERRANT read (RevisitCGEC 15, MuCGEC dev 1,
    # ChERRANT's cilin and confusion set 2 and its char-level demo 3, YACLC dev 2).
    assert len(entries) == 1041 + 28 + 4 + 8 + 12 + 59 + 23
    optional = [e for e in entries if e.optional]
    assert len(optional) == 12 and all(
        e.path.startswith("pillars/data/") and e.github_parts()[:2]
        == ("grammarly/pillars-of-gec", "1014de0bc90faddba0032acb5dec762c6c85d2e1") for e in optional)
    attack = [e for e in entries if e.path.startswith("attack/")]
    assert len(attack) == 8 and all(
        e.github_parts() == ("gotutiyan/attack-gec-metrics", "59cf0b132f24265c5953bb4005e5a94d87ec3308",
                             e.path.removeprefix("attack/")) for e in attack)
    derived = {e.path: e for e in entries if e.is_derived}
    assert set(derived) == set(fetch.DERIVED_TABLES)
    for path, entry in derived.items():
        assert _sha(fetch.DERIVED_TABLES[path]) == entry.sha256
    gz = {e.path for e in entries if e.gzipped}
    assert len(gz) == 9 and all(p.startswith("gjg15/nusnlp-gecmetrics/scores/") for p in gz)


MIRROR = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.skipif(not MIRROR.is_dir(), reason=f"no data mirror at {MIRROR}")
def test_real_mirror_matches_manifest():
    assert verify.verify_data_dir(MIRROR) == []
