"""Install the benchmark data (``make data``): copy or download every manifest file and verify it.

The project never commits benchmark data. It reads it from a data directory (env
``GEC_META_DATA``, else ``./data`` if it exists, else the per-user folder
``~/.local/share/gec-meta``) that this module fills (``gec-meta data`` or ``make data``), from
one of two sources:

1. a **local mirror** with the same layout (``--mirror DIR``, or env ``GEC_META_MIRROR``;
   ``make data`` passes ``../shared/data`` when it exists), or
2. the **public source repositories at pinned commits**: each file is downloaded from
   ``https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>``; files that are
   gzip-compressed upstream (``.gz``) are decompressed on the fly.

The list of files is the manifest (:mod:`gec_meta.data.verify`, which also checks a data
directory against it). The two derived files (manifest source ``derived``) exist in
no repository; they are small published tables, embedded below with their citation and written
from there when no mirror has them. An ``optional`` file is needed by one dataset only and may be
absent from a mirror (the Pillars-of-GEC system outputs of ``dataset=bea19_dev_attack``): a
mirror that lacks it is completed from its pinned source when the network is reachable, and
when it is not, the file is reported as not fetched without failing the installation (the
dataset that needs it names it).

Every file is written atomically (temporary file in the target folder, checked against the
manifest's sha256, then ``os.replace``), files already present with the right sha256 are left
alone (so re-running is nearly free), and a complete, verified directory gets a marker file
``.gec_meta_data_ok`` holding the manifest's sha256, so loaders can cheaply tell a complete data
dir (see :func:`gec_meta.data.verify.is_marked_complete`).

Command line::

    python -m gec_meta.data.fetch [--dest DIR] [--mirror DIR | --no-mirror] [--verify-only]
                                  [--manifest PATH] [--base-url URL] [--jobs N] [--no-progress]

Exit status: 0 when every file verified, 1 when some file is missing or corrupt (each one is
named), 2 when there is no source to fetch from (no mirror and no network) or on bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import os
import shutil
import sys
import tempfile
import urllib.error
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, TextIO

from gec_meta.data.verify import (
    _CHUNK, MARKER_NAME, RAW_BASE_URL, RERUN_HINT, Entry, ManifestError, check_file, load_manifest,
    manifest_digest, mismatch_text,
)

ENV_DATA_DIR = "GEC_META_DATA"
ENV_MIRROR_DIR = "GEC_META_MIRROR"
_TIMEOUT_S = 30
_ATTEMPTS = 3


# --------------------------------------------------------------------------------------------
# Embedded derived tables (published values; not in any repository).
# --------------------------------------------------------------------------------------------

def _tsv(rows: Iterable[tuple[str, ...]]) -> bytes:
    """Join rows of cells into TSV bytes (tab-separated, one ``\\n``-terminated line per row)."""
    return "".join("\t".join(row) + "\n" for row in rows).encode("utf-8")


# Grundkiewicz, Junczys-Dowmunt & Gillian (EMNLP 2015), "Human Evaluation of Grammatical Error
# Correction Systems", Table 3(b) Expected Wins and 3(c) TrueSkill, with rank ranges and
# clusters (values as transcribed in the shared data README, section 1.4, and checked there
# against the paper PDF `EMNLP052.pdf` in grammatical/evaluation).
_GJG15_TABLE3 = _tsv([
    ("system", "EW", "EW_rank_range", "TS", "TS_rank_range", "EW_cluster", "TS_cluster"),
    ("AMU", "0.628", "1", "0.273", "1", "1", "1"),
    ("RAC", "0.566", "2-3", "0.114", "3-4", "2", "3"),
    ("CAMB", "0.561", "2-4", "0.182", "2", "2", "2"),
    ("CUUI", "0.550", "3-5", "0.105", "3-5", "2", "3"),
    ("POST", "0.539", "4-5", "0.080", "4-5", "2", "3"),
    ("UFC", "0.513", "6-8", "-0.041", "7-10", "3", "4"),
    ("PKU", "0.506", "6-8", "-0.001", "6-7", "3", "4"),
    ("UMC", "0.495", "7-9", "-0.022", "6-8", "3", "4"),
    ("IITB", "0.485", "7-10", "-0.055", "8-11", "3", "4"),
    ("SJTU", "0.463", "10-11", "-0.074", "9-11", "3", "4"),
    ("INPUT", "0.456", "9-12", "-0.062", "8-11", "3", "4"),
    ("NTHU", "0.437", "11-12", "-0.142", "12", "3", "5"),
    ("IPN", "0.300", "13", "-0.358", "13", "4", "6"),
])

# Kobayashi, Mita & Komachi (TACL 2024), "Revisiting Meta-evaluation for Grammatical Error
# Correction": the system-score table of the tmu-nlp/SEEDA README at commit 0c6c07f9 (scores on
# the full 1,312-sentence CoNLL-2014 test set), transcribed as TSV.
_SEEDA_README_SCORES = _tsv([
    ("system", "M2", "SentM2", "PT-M2", "ERRANT", "SentERRANT", "PT-ERRANT", "GoToScorer",
     "GLEU", "Scribendi", "SOME", "IMPARA"),
    ("BART", "50.3", "51.29", "50.41", "46.66", "50.31", "48.89", "15.86", "63.46", "527",
     ".7933", "5.31"),
    ("BERT-fuse", "62.77", "63.21", "62.99", "58.99", "61.81", "61.18", "21.1", "68.5", "739",
     ".8151", "5.816"),
    ("GECToR-BERT", "61.83", "61.23", "60.76", "58.05", "59.76", "59.17", "18.98", "66.56",
     "640", ".8016", "5.644"),
    ("GECToR-ens", "63.53", "60.37", "59.21", "61.43", "59.64", "58.57", "16.58", "65.08",
     "529", ".786", "5.17"),
    ("GPT-3.5", "53.5", "53.28", "53.41", "44.12", "49.23", "48.93", "22.85", "65.93", "835",
     ".8379", "6.376"),
    ("INPUT", "0", "31.33", "31.33", "0", "31.4", "31.33", "0", "56.6", "0", ".7506", "4.089"),
    ("LM-Critic", "55.5", "58.0", "57.16", "52.38", "56.41", "55.86", "16.23", "64.39", "683",
     ".8028", "5.543"),
    ("PIE", "59.93", "60.7", "60.69", "55.89", "59.35", "58.65", "21.07", "67.83", "601",
     ".8066", "5.659"),
    ("REF-F", "47.48", "48.99", "46.54", "33.24", "41.41", "39.69", "21.7", "60.34", "711",
     ".8463", "6.569"),
    ("REF-M", "60.12", "62.3", "62.91", "54.77", "60.11", "60.6", "23.92", "67.27", "754",
     ".8155", "5.908"),
    ("Riken-Tohoku", "64.74", "64.22", "64.31", "61.88", "63.13", "62.73", "20.94", "68.37",
     "678", ".8123", "5.757"),
    ("T5", "65.07", "65.2", "66.13", "60.65", "63.24", "63.77", "20.46", "68.81", "668",
     ".8202", "6.045"),
    ("TemplateGEC", "56.29", "57.59", "57.47", "51.34", "56.08", "55.96", "14.7", "65.07",
     "448", ".7972", "5.52"),
    ("TransGEC", "68.08", "68.33", "68.37", "64.43", "66.76", "66.37", "21.93", "70.2", "779",
     ".82", "6.035"),
    ("UEDIN-MS", "64.55", "62.68", "62.67", "61.33", "61.38", "61.19", "18.94", "67.41", "666",
     ".808", "5.591"),
])

#: Derived files (manifest source ``derived``) and their embedded content.
DERIVED_TABLES: dict[str, bytes] = {
    "gjg15/gjg15_table3_human_scores.tsv": _GJG15_TABLE3,
    "seeda/readme_metric_scores.tsv": _SEEDA_README_SCORES,
}


# --------------------------------------------------------------------------------------------
# Locations
# --------------------------------------------------------------------------------------------

class NoSourceError(RuntimeError):
    """Neither a mirror nor the network is available to fetch missing files."""


def user_data_dir() -> Path:
    """The per-user data folder: ``$XDG_DATA_HOME/gec-meta`` (default ``~/.local/share/gec-meta``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "gec-meta"


#: The data directories named by the runs in progress (:func:`data_directory`), innermost last.
_SCOPED: list[Path] = []


@contextlib.contextmanager
def data_directory(root: str | Path | None) -> Iterator[None]:
    """Within this block :func:`default_data_dir` is ``root`` (None: no change).

    A run is handed its data directory (``gec-meta-run data_dir=...``, the API's ``root``), and
    its dataset and references are read from there; what finds its files by itself -- ChERRANT's
    Cilin and confusion set (:func:`gec_meta.edits.cherrant.cherrant_extractor`), in the edit
    cache's namespace and the signature too -- would otherwise read ``$GEC_META_DATA`` or
    ``./data``, another folder with possibly other files.  The run's code is called inside this
    block so that both come from the same directory; worker processes are handed the folder.
    """
    if root is None:
        yield
        return
    _SCOPED.append(Path(root).expanduser())
    try:
        yield
    finally:
        _SCOPED.pop()


def default_data_dir() -> Path:
    """The data directory: the one of the run in progress (:func:`data_directory`), else
    ``$GEC_META_DATA``, else ``./data`` if it exists (a checkout, where ``make data`` fills it),
    else the per-user folder (:func:`user_data_dir`).

    Nothing here looks at where the package is installed: an installed wheel and a checkout
    find the data the same way.
    """
    if _SCOPED:
        return _SCOPED[-1]
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser()
    local = Path("data")
    return local if local.is_dir() else user_data_dir()


def resolve_mirror(mirror: Path | str | None, use_default: bool = True) -> Path | None:
    """Pick the mirror to copy from: ``mirror`` if given, else ``$GEC_META_MIRROR`` if it is a
    directory (``use_default``), else None (the public sources).

    An explicitly given mirror that is not a directory is an error (:class:`NoSourceError`),
    since silently going online instead would surprise an offline user.
    """
    if mirror not in (None, ""):
        path = Path(mirror).expanduser()
        if not path.is_dir():
            raise NoSourceError(f"mirror {path} is not a directory")
        return path
    if use_default:
        default = os.environ.get(ENV_MIRROR_DIR)
        if default and Path(default).expanduser().is_dir():
            return Path(default).expanduser()
    return None


def _write_marker(root: Path, manifest_path: Path | None) -> None:
    """Record that ``root`` verified completely against the manifest."""
    marker = Path(root) / MARKER_NAME
    text = manifest_digest(manifest_path) + "\n"
    if not marker.is_file() or marker.read_text(encoding="utf-8") != text:
        _atomic_write(marker, lambda out: out.write(text.encode("utf-8")))


def _remove_marker(root: Path) -> None:
    """Drop a stale completeness marker (the directory failed verification)."""
    try:
        (Path(root) / MARKER_NAME).unlink()
    except FileNotFoundError:
        pass


# --------------------------------------------------------------------------------------------
# Writing files
# --------------------------------------------------------------------------------------------

class FetchError(RuntimeError):
    """One file could not be obtained or did not match the manifest."""


class _HashingWriter:
    """A binary writer that hashes what passes through it."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.digest = hashlib.sha256()

    def write(self, data: bytes) -> int:
        """Write ``data`` to the underlying file, updating the hash."""
        self.digest.update(data)
        return self.out.write(data)


def _atomic_write(target: Path, produce: Callable[[BinaryIO], object],
                  expected_sha: str | None = None) -> None:
    """Write ``target`` atomically: ``produce`` writes into a temporary file in the same folder,
    which replaces ``target`` only if (when given) its sha256 equals ``expected_sha``.

    Raises :class:`FetchError` on a mismatch; the temporary file is always cleaned up.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as raw:
            writer = _HashingWriter(raw)
            produce(writer)
        got = writer.digest.hexdigest()
        if expected_sha is not None and got != expected_sha:
            raise FetchError(mismatch_text(expected_sha, got))
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def _copy_stream(src: BinaryIO, out: BinaryIO) -> None:
    """Copy a binary stream chunk by chunk."""
    shutil.copyfileobj(src, out, _CHUNK)


def copy_from_mirror(entry: Entry, mirror: Path, target: Path) -> None:
    """Copy one file from the mirror to ``target``, verifying its sha256 before installing it."""
    source = mirror / entry.path
    if not source.is_file():
        raise FetchError(f"not in mirror (looked for {source})")
    try:
        with open(source, "rb") as src:
            _atomic_write(target, lambda out: _copy_stream(src, out), entry.sha256)
    except FetchError as err:
        raise FetchError(f"mirror copy {source} is corrupt or out of date: {err}") from None


def write_derived(entry: Entry, target: Path) -> None:
    """Write a derived file from its embedded table, verifying its sha256."""
    content = DERIVED_TABLES.get(entry.path)
    if content is None:
        raise FetchError("derived file with no embedded table; copy it from a mirror "
                         "(make data MIRROR=path/to/shared/data)")
    try:
        _atomic_write(target, lambda out: out.write(content), entry.sha256)
    except FetchError as err:
        raise FetchError(f"embedded table does not match the manifest: {err}") from None


_CONNECTIVITY_ERRORS = (urllib.error.URLError, TimeoutError, ConnectionError)
_TRANSFER_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)


def _open_url(url: str) -> BinaryIO:
    """Open a URL for reading, with a timeout and an identifying User-Agent.  ``urllib.request``
    (http.client, ssl, email: ~15 ms) is imported here: every run imports this module for the
    data directory's path, and only ``make data`` downloads."""
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": "gec-meta-data-fetch"})
    return urllib.request.urlopen(request, timeout=_TIMEOUT_S)  # noqa: S310 (fixed hosts)


def download(entry: Entry, target: Path, base_url: str = RAW_BASE_URL,
             attempts: int = _ATTEMPTS) -> None:
    """Download one file (decompressing ``.gz`` sources), verify it and install it.

    Transient failures (server errors, broken transfers, timeouts) are retried a few times.
    Raises :class:`FetchError` naming the URL, except for connectivity failures, which are
    re-raised as they are (``URLError``, ``TimeoutError``, ``ConnectionError``) so the caller
    can tell "offline" from "this file is wrong".
    """
    url = entry.url(base_url)
    last: BaseException | None = None
    for _ in range(max(1, attempts)):
        try:
            with _open_url(url) as response:
                stream: BinaryIO = gzip.GzipFile(fileobj=response) if entry.gzipped else response
                _atomic_write(target, lambda out: _copy_stream(stream, out), entry.sha256)
            return
        except urllib.error.HTTPError as err:
            if err.code < 500:
                raise FetchError(f"download failed: HTTP {err.code} for {url}") from None
            last = err
        except FetchError as err:
            raise FetchError(f"downloaded {url}: {err}") from None
        except _TRANSFER_ERRORS + _CONNECTIVITY_ERRORS as err:
            last = err
    if isinstance(last, _CONNECTIVITY_ERRORS) and not isinstance(last, urllib.error.HTTPError):
        raise last
    raise FetchError(f"download failed for {url}: {last}")


# --------------------------------------------------------------------------------------------
# The installer
# --------------------------------------------------------------------------------------------

@dataclass
class FetchReport:
    """What :func:`fetch_data` did."""

    dest: Path
    mirror: Path | None
    total: int = 0
    present: int = 0
    copied: int = 0
    downloaded: int = 0
    derived: int = 0
    verify_only: bool = False
    problems: list[str] = field(default_factory=list)
    optional_missing: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every manifest file is now present and verified."""
        return not self.problems

    def summary(self) -> str:
        """A one-line human summary."""
        tail = "all verified." if self.ok else f"{len(self.problems)} problem(s)."
        if self.optional_missing:
            tail += (f" {len(self.optional_missing)} optional file(s) absent (not in the mirror and the "
                     f"sources are unreachable; only the dataset that reads them needs them): "
                     + ", ".join(self.optional_missing[:3]) + (", ..." if len(self.optional_missing) > 3 else ""))
        if self.verify_only:
            return (f"gec-meta data in {self.dest}: {self.present} of {self.total} files "
                    f"verified; {tail}")
        source = f"mirror {self.mirror}" if self.mirror else "GitHub (pinned commits)"
        parts = [f"{self.copied} copied", f"{self.downloaded} downloaded",
                 f"{self.derived} written from embedded tables",
                 f"{self.present} already present"]
        head = f"gec-meta data in {self.dest} ({self.total} files, source: {source}): "
        return head + ", ".join(parts) + "; " + tail


def _no_source_message(dest: Path, reason: BaseException) -> str:
    """The error shown when files are missing and neither mirror nor network is available."""
    return (f"cannot fill {dest}: no local mirror (pass --mirror DIR, i.e. "
            f"`make data MIRROR=path/to/shared/data`, or put one at ../shared/data next to the "
            f"repository) and the source repositories are unreachable ({reason}).")


class _NoBar:
    """Stand-in for a tqdm bar when tqdm is unavailable or disabled."""

    def update(self, n: int = 1) -> None:
        """Ignore progress."""

    def close(self) -> None:
        """Nothing to close."""


def _progress_bar(total: int, enabled: bool):
    """A tqdm bar over ``total`` downloads when tqdm is importable and ``enabled``."""
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, desc="downloading", unit="file", disable=None)


def _obtain_local(entry: Entry, target: Path, mirror: Path | None, report: FetchReport) -> None:
    """Obtain a file without the network (mirror copy or embedded table); count it."""
    if mirror is not None and (mirror / entry.path).is_file():
        copy_from_mirror(entry, mirror, target)
        report.copied += 1
    elif entry.is_derived:
        write_derived(entry, target)
        report.derived += 1
    else:
        copy_from_mirror(entry, mirror, target)  # raises "not in mirror"


def _download_problem(entry: Entry, dest: Path, base_url: str) -> str | None:
    """Download one entry; return None on success, else a problem message naming the file."""
    try:
        download(entry, dest / entry.path, base_url)
    except (FetchError, OSError) as err:
        return f"{dest / entry.path}: {err}; {RERUN_HINT}"
    return None


def _download_all(entries: list[Entry], dest: Path, base_url: str, jobs: int,
                  report: FetchReport, progress: bool) -> None:
    """Download ``entries`` into ``dest``, recording problems in ``report``.

    The first download runs alone so that being offline is detected at once and reported as
    :class:`NoSourceError` instead of once per file; the rest run in a small thread pool.
    """
    if not entries:
        return
    first, rest = entries[0], entries[1:]
    bar = _progress_bar(len(entries), progress)
    try:
        try:
            download(first, dest / first.path, base_url, attempts=1)
        except FetchError as err:
            report.problems.append(f"{dest / first.path}: {err}; {RERUN_HINT}")
        except _CONNECTIVITY_ERRORS as err:
            raise NoSourceError(_no_source_message(dest, err)) from None
        else:
            report.downloaded += 1
        bar.update(1)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for problem in pool.map(lambda e: _download_problem(e, dest, base_url), rest):
                bar.update(1)
                if problem is None:
                    report.downloaded += 1
                else:
                    report.problems.append(problem)
    finally:
        bar.close()


def fetch_data(dest: Path, mirror: Path | str | None = None, *,
               manifest_path: Path | None = None, use_default_mirror: bool = True,
               base_url: str = RAW_BASE_URL, jobs: int = 8, progress: bool = True,
               verify_only: bool = False) -> FetchReport:
    """Fill ``dest`` with every manifest file and verify them all.

    Files already present with the right sha256 are kept. The others are copied from the
    mirror (``mirror``, else the default ``../shared/data`` when ``use_default_mirror``),
    written from embedded tables (derived files), or downloaded from ``base_url``. With
    ``verify_only`` nothing is copied. On success the marker ``.gec_meta_data_ok`` is written;
    on failure a stale marker is removed. Raises :class:`NoSourceError` when files are needed
    and neither a mirror nor the network is available. Optional files (manifest field
    ``optional``) that the mirror lacks are downloaded; offline, they are listed in
    ``report.optional_missing`` and do not fail the run.
    """
    dest = Path(dest)
    entries = load_manifest(manifest_path)
    chosen = None if verify_only else resolve_mirror(mirror, use_default_mirror)
    report = FetchReport(dest=dest, mirror=chosen, total=len(entries), verify_only=verify_only)
    needed: list[Entry] = []
    for entry in entries:
        problem = check_file(dest, entry)
        if problem is None:
            report.present += 1
        elif verify_only and entry.optional and not (dest / entry.path).exists():
            report.optional_missing.append(str(dest / entry.path))
        elif verify_only:
            report.problems.append(problem)
        else:
            needed.append(entry)
    to_download, optional_downloads = [], []
    for entry in needed:
        if entry.optional and not (chosen is not None and (chosen / entry.path).is_file()):
            optional_downloads.append(entry)
            continue
        local = chosen is not None or entry.is_derived
        if not local:
            to_download.append(entry)
            continue
        try:
            _obtain_local(entry, dest / entry.path, chosen, report)
        except FetchError as err:
            report.problems.append(f"{dest / entry.path}: {err}; {RERUN_HINT}")
    _download_all(to_download, dest, base_url, jobs, report, progress)
    if optional_downloads:
        try:
            _download_all(optional_downloads, dest, base_url, jobs, report, progress)
        except NoSourceError:  # offline: the optional files stay absent, named in the summary
            report.optional_missing += [str(dest / e.path) for e in optional_downloads
                                        if not (dest / e.path).is_file()]
    if report.ok:
        _write_marker(dest, manifest_path)
    else:
        _remove_marker(dest)
    return report


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m gec_meta.data.fetch``."""
    parser = argparse.ArgumentParser(
        prog="gec-meta data",
        description="Install (copy or download) and verify the gec-meta benchmark data.")
    parser.add_argument("--dest", type=Path, default=None,
                        help="data directory to fill (default: $GEC_META_DATA, else ./data if it exists, "
                             "else ~/.local/share/gec-meta)")
    parser.add_argument("--mirror", default=None,
                        help="local mirror with the same layout (default: $GEC_META_MIRROR if set, "
                             "else download from the public repositories)")
    parser.add_argument("--no-mirror", action="store_true",
                        help="ignore $GEC_META_MIRROR and download from the public repositories")
    parser.add_argument("--verify-only", action="store_true",
                        help="only verify DEST against the manifest; copy nothing")
    parser.add_argument("--manifest", type=Path, default=None,
                        help="manifest TSV (default: the packaged manifest.tsv)")
    parser.add_argument("--base-url", default=RAW_BASE_URL,
                        help="base URL for downloads (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=8, help="parallel downloads (default: 8)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def _print_problems(problems: list[str], stream: TextIO, limit: int = 50) -> None:
    """Print problem lines (at most ``limit``, then a count of the rest)."""
    for problem in problems[:limit]:
        print(f"  {problem}", file=stream)
    if len(problems) > limit:
        print(f"  ... and {len(problems) - limit} more", file=stream)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 1 problems, 2 no source / bad usage)."""
    args = build_parser().parse_args(argv)
    dest = args.dest if args.dest is not None else default_data_dir()
    try:
        report = fetch_data(dest, args.mirror, manifest_path=args.manifest,
                            use_default_mirror=not args.no_mirror,
                            base_url=args.base_url, jobs=args.jobs,
                            progress=not args.no_progress, verify_only=args.verify_only)
    except (NoSourceError, ManifestError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if report.ok:
        print(report.summary())
        return 0
    print(report.summary(), file=sys.stderr)
    print("Problems:", file=sys.stderr)
    _print_problems(report.problems, sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
