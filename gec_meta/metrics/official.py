"""MultiGEC-2025's official scores as a metric (``metric=multigec_official``).

The shared task's texts are not public, so its official GLEU, ERRANT precision/recall/F0.5 and
Scribendi scores (``multigec/results/test_results_<track>.md``, read by
:func:`gec_meta.data.multigec.official_scores`) are the only metric scores there are: a
system-level, score-file metric for ``dataset=multigec2025``.  It has no per-text scores:
every text gets its system's published score, so every aggregation gives the published order
and the dataset has no segment ratings to meet (only the system level is meta-evaluated).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from gec_meta.config import one_of, valid
from gec_meta.data.multigec import MULTIGEC_COLUMNS, MULTIGEC_LANGUAGES, MULTIGEC_TRACKS, multigec_systems, official_scores
from gec_meta.errors import ConfigError
from gec_meta.metrics.base import ANY_LANGUAGE, Metric


@dataclass(frozen=True)
class MultigecOfficial(Metric):
    """One column of the official MultiGEC-2025 test results.

    Fields:
        column: ``gleu``, ``precision``, ``recall``, ``f05`` (ERRANT F0.5) or ``scribendi``.
        language, track: which table (``run.py`` takes them from ``dataset.language`` and
            ``dataset.track``).
        data_dir: the data directory (``run.py``: ``data_dir``); not in the signature.
    """

    column: str = field(default="f05", metadata=valid(one_of(*MULTIGEC_COLUMNS)))
    language: str = field(default="sv", metadata=valid(one_of(*MULTIGEC_LANGUAGES)))
    track: str = field(default="minimal", metadata=valid(one_of(*MULTIGEC_TRACKS)))
    data_dir: str = field(default="", repr=False)
    _scores: tuple[float, ...] = field(default=(), repr=False, compare=False)

    name: ClassVar[str] = "multigec_official"
    needs_source: ClassVar[bool] = False
    needs_references: ClassVar[bool] = False
    cacheable: ClassVar[bool] = False
    depends_on_system_set: ClassVar[bool] = True
    permutable: ClassVar[bool] = False
    #: Resampling texts cannot change a published score: no bootstrap CI (Task raises).
    resamplable: ClassVar[bool] = False
    languages: ClassVar[tuple[str, ...] | str] = ANY_LANGUAGE  # scores computed by the shared task
    #: Reads no text: runs on the text-free ``multigec2025`` (:func:`gec_meta.data.multigec.require_texts`).
    reads_texts: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("score", "system_score")

    def bind(self, sources, hypotheses, references, systems=None) -> "MultigecOfficial":
        expected = multigec_systems(self.track)
        if systems is None or tuple(systems) != expected:
            raise ConfigError(f"metric=multigec_official scores the MultiGEC-2025 submissions {list(expected)} "
                              f"(dataset=multigec2025 dataset.track={self.track}), not {list(systems or ())}")
        if not self.data_dir:
            raise ConfigError("metric.data_dir: the data directory (holding multigec/) is not set")
        values = official_scores(self.data_dir, self.language, self.track)[self.column]
        return MultigecOfficial(self.column, self.language, self.track, self.data_dir, tuple(float(v) for v in values))

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        if len(self._scores) != len(hypotheses):
            raise ConfigError("multigec_official: statistics() of an unbound metric (call bind() with the systems)")
        out = np.empty((len(hypotheses), len(sources), 1, 2))
        out[:] = np.asarray(self._scores)[:, None, None, None]  # no per-text score: the system's
        return out

    @property
    def corpus_reduction(self) -> str | None:
        return None

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        return stats[:, 0, 0, 1]
