"""Scores computed elsewhere enter through files (after mt-metrics-eval's convention).

Layout of a score folder::

    <dir>/<system>.seg.score   one float per line, line k = sentence k of the dataset (N lines)
    <dir>/<system>.sys.score   optional: one float, the system score of the metric's own
                               aggregation (``aggregation=default``); without it, the default
                               aggregation is the mean of the segment scores

System names are the dataset's (``BART``, ``GECToR-BERT``, ... for SEEDA; ``AMU``, ... for
GJG15); the sentences are those the dataset scores (SEEDA: the 391 judged sentences, in
``outputs/subset`` order; ``dataset.sentences=all``: the 1,312).  Higher is better.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.cache import text_hash
from gec_meta.data.io import read_floats, read_text
from gec_meta.errors import ConfigError, DataError, MissingDataError
from gec_meta.metrics.base import ANY_LANGUAGE, Metric
from gec_meta.report.tables import atomic_write_text


def write_score_files(folder: str | Path, systems: Sequence[str], segment_scores: np.ndarray,
                      system_scores: Sequence[float] | None = None) -> Path:
    """Write ``<system>.seg.score`` (and ``.sys.score``) files.

    Args:
        segment_scores: shape (S, N).
        system_scores: shape (S,) or None.
    """
    folder = Path(folder)
    seg = np.asarray(segment_scores, dtype=np.float64)
    if seg.shape[0] != len(systems):
        raise ValueError(f"{seg.shape[0]} rows of segment scores for {len(systems)} systems")
    for i, system in enumerate(systems):
        atomic_write_text(folder / f"{system}.seg.score", "".join(f"{x!r}\n" for x in seg[i].tolist()))
        if system_scores is not None:
            atomic_write_text(folder / f"{system}.sys.score", f"{float(system_scores[i])!r}\n")
    return folder


def _universal_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def score_files(folder: Path) -> list[Path]:
    """The ``*.score`` files of a score folder, sorted.

    Raises:
        DataError: a directory named like a score file.
    """
    files = sorted(folder.glob("*.score"))
    for p in files:
        if p.is_dir():
            raise DataError("is a directory named like a score file", p)
    return files


def read_score_files(folder: str | Path, systems: Sequence[str], num_sentences: int):
    """Segment scores (S, N) and system scores (S,) or None, with errors naming the file."""
    folder = Path(folder)
    if not folder.is_dir():
        raise MissingDataError(f"{folder}: score folder not found (metric.dir)")
    seg = np.zeros((len(systems), num_sentences))
    sys_scores: list[float] = []
    for i, system in enumerate(systems):
        path = folder / f"{system}.seg.score"
        if not path.exists():
            have = sorted(p.name.removesuffix(".seg.score") for p in folder.glob("*.seg.score"))
            raise MissingDataError(f"{path}: no segment scores for system {system!r} (have: {have})")
        values = read_floats(path)
        if len(values) != num_sentences:
            raise DataError(f"has {len(values)} scores, the dataset has {num_sentences} sentences", path)
        seg[i] = values
        sys_path = folder / f"{system}.sys.score"
        if sys_path.exists():
            v = read_floats(sys_path)
            if len(v) != 1:
                raise DataError(f"expected one system score, got {len(v)}", sys_path)
            sys_scores.append(v[0])
    if sys_scores and len(sys_scores) != len(systems):
        raise DataError(f"{folder}: .sys.score files exist for some systems only")
    return seg, (np.array(sys_scores) if sys_scores else None)


@dataclass(frozen=True)
class FromFiles(Metric):
    """A metric whose scores were computed elsewhere and are read from ``dir`` (see module doc).

    Fields:
        dir: the score folder.
        label: the metric's name in signatures (default: the folder name).

    Statistics per sentence: (segment score, system score); the system score is the
    ``.sys.score`` value, or the mean of the segment scores when there is none.  Not cached:
    reading the files is cheaper than the cache, and the files are the source of truth.
    """

    dir: str = ""
    label: str = ""
    _systems: tuple[str, ...] = field(default=(), repr=False, compare=False)
    _content: str = field(default="", repr=False, compare=False)

    name: ClassVar[str] = "from_files"
    needs_source: ClassVar[bool] = False
    needs_references: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("score", "system_score")
    cacheable: ClassVar[bool] = False
    #: Reads no text (runs on text-free datasets such as ``multigec2025``).
    reads_texts: ClassVar[bool] = False
    languages: ClassVar[tuple[str, ...] | str] = ANY_LANGUAGE  # scores computed elsewhere

    def options(self):
        return {"dir": self.dir, "label": self.label or Path(self.dir).name, "content": self._content,
                **({"lang": self._language} if self._language != "en" else {})}

    depends_on_system_set: ClassVar[bool] = True

    def bind(self, sources, hypotheses, references, systems=None) -> "FromFiles":
        if not self.dir:
            raise ConfigError("metric.dir: the folder of <system>.seg.score files is not set")
        if systems is None:
            raise ConfigError("metric=from_files needs the system names (evaluate it on a dataset)")
        folder = Path(self.dir)
        # The text with universal newlines (what Path.read_text gives): the digest enters the signature.
        digest = text_hash(*(_universal_newlines(read_text(p)[1]) for p in score_files(folder)))[:20] \
            if folder.is_dir() else "missing"
        return FromFiles(self.dir, self.label, tuple(systems), digest)

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        if len(self._systems) != len(hypotheses):
            raise ConfigError("from_files: statistics() of an unbound metric (call bind() with the systems)")
        seg, sys_scores = read_score_files(self.dir, self._systems, len(sources))
        out = np.zeros((len(hypotheses), len(sources), 1, 2))
        out[:, :, 0, 0] = seg
        out[:, :, 0, 1] = (seg.mean(axis=1) if sys_scores is None else sys_scores)[:, None]
        return out

    @property
    def corpus_reduction(self) -> str | None:
        return None  # the .sys.score file's value

    #: System scores read from a file cannot be recomputed on permuted sentences: no SPA.
    permutable: ClassVar[bool] = False

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        return stats[:, 0, 0, 1]
