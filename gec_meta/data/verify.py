"""The benchmark data's manifest, and checking a data directory against it.

The list of files is ``manifest.tsv`` next to this module (built by ``make_manifest.py``): one
line per file, ``path<TAB>sha256<TAB>bytes<TAB>source[<TAB>optional]``, where ``source`` is
``github:<owner>/<repo>@<commit>:<path-in-repo>`` or ``derived`` (a small published table that
exists in no repository, written by :mod:`gec_meta.data.fetch` from its embedded copy). An
``optional`` file is needed by one dataset only and may be absent from a mirror.

:func:`verify_data_dir` checks every file's sha256 and names each problem; a directory that
verified completely carries the marker ``.gec_meta_data_ok`` holding the manifest's sha256
(written by the installer), which :func:`is_marked_complete` checks cheaply.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_MANIFEST = PACKAGE_DIR / "manifest.tsv"
RAW_BASE_URL = "https://raw.githubusercontent.com"
MARKER_NAME = ".gec_meta_data_ok"
RERUN_HINT = "re-run make data"
DERIVED = "derived"
_CHUNK = 1 << 16


# --------------------------------------------------------------------------------------------
# Manifest
# --------------------------------------------------------------------------------------------

class ManifestError(ValueError):
    """The manifest file is malformed."""


@dataclass(frozen=True)
class Entry:
    """One manifest row: a data file, its expected sha256 and size, and where it comes from."""

    path: str
    sha256: str
    size: int
    source: str
    optional: bool = False

    @property
    def is_derived(self) -> bool:
        """True for files that exist in no repository (written from :data:`DERIVED_TABLES`)."""
        return self.source == DERIVED

    def github_parts(self) -> tuple[str, str, str]:
        """Return ``(owner/repo, commit, path-in-repo)`` of a ``github:`` source."""
        body = self.source.removeprefix("github:")
        repo, _, rest = body.partition("@")
        commit, _, repo_path = rest.partition(":")
        return repo, commit, repo_path

    def url(self, base_url: str = RAW_BASE_URL) -> str:
        """The raw download URL of a ``github:`` source."""
        from urllib.parse import quote

        repo, commit, repo_path = self.github_parts()
        # quoted: RevisitCGEC's folders have spaces ("system corrections/...")
        return f"{base_url.rstrip('/')}/{repo}/{commit}/{quote(repo_path)}"

    @property
    def gzipped(self) -> bool:
        """True when the upstream file is gzip-compressed (stored decompressed here)."""
        return not self.is_derived and self.source.endswith(".gz")


def _check_relative(path: str, where: str) -> None:
    """Reject manifest paths that are absolute or climb out of the data directory."""
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path:
        raise ManifestError(f"{where}: unsafe path {path!r}")


def _parse_source(source: str, where: str) -> None:
    """Check that a manifest source is ``derived`` or ``github:owner/repo@commit:path``."""
    if source == DERIVED:
        return
    if not source.startswith("github:"):
        raise ManifestError(f"{where}: unknown source {source!r}")
    body = source.removeprefix("github:")
    repo, at, rest = body.partition("@")
    commit, colon, repo_path = rest.partition(":")
    if not (at and colon and repo.count("/") == 1 and len(commit) == 40 and repo_path):
        raise ManifestError(f"{where}: malformed github source {source!r}")


#: The fifth manifest field of a file that one dataset needs and a mirror may lack.
OPTIONAL = "optional"


def parse_manifest_line(line: str, where: str) -> Entry:
    """Parse one ``path<TAB>sha256<TAB>bytes<TAB>source[<TAB>optional]`` line into an :class:`Entry`."""
    cells = line.rstrip("\n").split("\t")
    if len(cells) not in (4, 5):
        raise ManifestError(f"{where}: expected 4 tab-separated fields (a fifth, {OPTIONAL!r}, marks an "
                            f"optional file), got {len(cells)}")
    if len(cells) == 5 and cells[4] != OPTIONAL:
        raise ManifestError(f"{where}: the fifth field must be {OPTIONAL!r}, got {cells[4]!r}")
    path, sha, size, source = cells[:4]
    _check_relative(path, where)
    if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise ManifestError(f"{where}: bad sha256 {sha!r}")
    if not size.isdigit():
        raise ManifestError(f"{where}: bad byte count {size!r}")
    _parse_source(source, where)
    return Entry(path, sha, int(size), source, optional=len(cells) == 5)


def load_manifest(manifest_path: Path | None = None) -> list[Entry]:
    """Read the manifest (default: ``manifest.tsv`` next to this module).

    Blank lines and lines starting with ``#`` are ignored. Raises :class:`ManifestError` naming
    the offending line.
    """
    manifest_path = Path(manifest_path or DEFAULT_MANIFEST)
    entries: list[Entry] = []
    seen: set[str] = set()
    text = manifest_path.read_text(encoding="utf-8")
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        entry = parse_manifest_line(line, f"{manifest_path}:{lineno}")
        if entry.path in seen:
            raise ManifestError(f"{manifest_path}:{lineno}: duplicate path {entry.path!r}")
        seen.add(entry.path)
        entries.append(entry)
    return entries


def manifest_digest(manifest_path: Path | None = None) -> str:
    """The sha256 of the manifest file itself (what the completeness marker records)."""
    return sha256_file(Path(manifest_path or DEFAULT_MANIFEST))


# --------------------------------------------------------------------------------------------
# Hashing and verification
# --------------------------------------------------------------------------------------------

def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _short(digest: str) -> str:
    """A shortened hex digest for messages."""
    return digest[:12] + "…"


def mismatch_text(expected: str, got: str) -> str:
    """The wording used for a sha256 mismatch."""
    return f"sha256 mismatch (expected {_short(expected)}, got {_short(got)})"


def check_file(root: Path, entry: Entry) -> str | None:
    """Check one file under ``root`` against its manifest entry.

    Returns None when it is present with the right sha256, else a problem message naming the
    file (as ``root/path``, with ``root`` as given) and telling how to fix it.
    """
    target = root / entry.path
    if not target.is_file():
        return f"{target}: missing; {RERUN_HINT}"
    size = target.stat().st_size
    if size != entry.size:
        got = sha256_file(target)
        return (f"{target}: {mismatch_text(entry.sha256, got)}, {size} bytes instead of "
                f"{entry.size}; {RERUN_HINT}")
    got = sha256_file(target)
    if got != entry.sha256:
        return f"{target}: {mismatch_text(entry.sha256, got)}; {RERUN_HINT}"
    return None


def verify_data_dir(root: Path, manifest_path: Path | None = None) -> list[str]:
    """Verify every manifest file under ``root``; return the problems (empty if all is fine).

    Each problem names the file, e.g. ``data/gjg15/judgments.xml: sha256 mismatch (expected
    ab12…, got cd34…); re-run make data``. Files not in the manifest are ignored, and so is an
    absent optional file (a present one is verified).
    """
    root = Path(root)
    problems = []
    for entry in load_manifest(manifest_path):
        if entry.optional and not (root / entry.path).exists():
            continue
        problem = check_file(root, entry)
        if problem is not None:
            problems.append(problem)
    return problems


def is_marked_complete(root: Path, manifest_path: Path | None = None) -> bool:
    """Cheap check: does ``root`` carry the marker written after a full verification against
    this manifest (every required file; optional ones may be absent)? (It does not re-hash the
    files; use :func:`verify_data_dir` for that.)"""
    marker = Path(root) / MARKER_NAME
    try:
        recorded = marker.read_text(encoding="utf-8").strip()
    except OSError:
        return False
    return recorded == manifest_digest(manifest_path)

