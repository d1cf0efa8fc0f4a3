"""The :class:`Dataset` type: one benchmark as an immutable typed container, and the two
helpers every loader shares (a read-only mapping, a data folder that must exist).

The loaders are in :mod:`gec_meta.data.datasets` (English benchmarks and the registry
``LOADERS``), :mod:`gec_meta.data.swedish`, :mod:`gec_meta.data.multigec` and
:mod:`gec_meta.data.revisit_cgec`; they import this module, and the registry imports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

from gec_meta.data.judgments import RankingItem
from gec_meta.errors import ConfigError, MissingDataError


@dataclass(frozen=True)
class Dataset:
    """A benchmark: system outputs, human system scores and human sentence rankings.

    Attributes:
        name, setting: e.g. ``seeda`` / ``base``.
        corpus: the corpus the sentences come from (``conll14``, ``gmeg_wiki_test``), which
            decides which reference sets apply.
        sources: shape (N,).
        systems: shape (S,), in the configured order.
        hypotheses: shape (S, N).
        human: human score name -> array of shape (S,).
        judgments: aspect -> ranking items whose ``line`` is an index into ``sources``.
        corpus_lines: shape (N,): the 0-based line of ``corpus`` of each sentence (refsets
            map their references through it).
        references: references shipped with the dataset (GMEG), shape (R, N), else empty.
        options: loader options (enter the signature).
        segment_scores: human sentence ratings, name -> shape (S, N) (GMEG-Wiki ``score``:
            the mean rating of every system's output of every sentence), else empty.
        files: system (or reference name) -> the file its text was read from (line n + 1 is
            sentence n of a text file), for messages only; empty when unknown.
        attack_systems: shape (A,): adversarial outputs scored beside the systems but without
            human judgments (Goto et al. 2025; :mod:`gec_meta.meta.robustness`), else empty.
        attack_hypotheses: shape (A, N).
        language: ISO 639-1 code of the text (``en``, ``zh``, ...): it picks the tokenisation,
            the edit extractor (:func:`gec_meta.edits.languages.edit_extractor`) and the metrics
            that may run (:meth:`gec_meta.metrics.base.Metric.for_language`); named in the
            signature (``lang=zh``) unless English.
    """

    name: str
    setting: str
    corpus: str
    sources: tuple[str, ...]
    systems: tuple[str, ...]
    hypotheses: tuple[tuple[str, ...], ...]
    human: Mapping[str, np.ndarray]
    judgments: Mapping[str, tuple[RankingItem, ...]]
    corpus_lines: tuple[int, ...]
    references: tuple[tuple[str, ...], ...] = ()
    reference_names: tuple[str, ...] = ()
    options: Mapping[str, object] = field(default_factory=dict)
    segment_scores: Mapping[str, np.ndarray] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    attack_systems: tuple[str, ...] = ()
    attack_hypotheses: tuple[tuple[str, ...], ...] = ()
    language: str = "en"

    @property
    def num_systems(self) -> int:
        return len(self.systems)

    @property
    def num_sentences(self) -> int:
        return len(self.sources)

    def signature(self) -> str:
        from gec_meta.meta.components import component

        lang = {} if self.language == "en" else {"lang": self.language}
        return component(self.name, {"setting": self.setting, **self.options, **lang})

    def with_attacks(self) -> "Dataset":
        """The attack systems appended to the systems as ordinary ones, shape (S + A,), with no
        human scores or judgments: what a metric ranks in :mod:`gec_meta.meta.robustness`."""
        if not self.attack_systems:
            raise ConfigError(f"dataset {self.name} has no attack systems (dataset.attacks=true adds them)")
        return replace(self, systems=self.systems + self.attack_systems,
                       hypotheses=self.hypotheses + self.attack_hypotheses, human=frozen_mapping({}),
                       judgments=frozen_mapping({}), segment_scores=frozen_mapping({}), attack_systems=(), attack_hypotheses=())

    def select(self, systems: Sequence[str]) -> "Dataset":
        """The same dataset restricted to (and reordered as) ``systems``."""
        unknown = [s for s in systems if s not in self.systems]
        if unknown:
            raise ConfigError(
                f"unknown system(s) {unknown} for dataset {self.name}; known: {list(self.systems)}"
            )
        idx = [self.systems.index(s) for s in systems]
        return Dataset(
            self.name, self.setting, self.corpus, self.sources, tuple(systems),
            tuple(self.hypotheses[i] for i in idx),
            MappingProxyType({k: v[idx] for k, v in self.human.items()}),
            self.judgments, self.corpus_lines, self.references, self.reference_names,
            MappingProxyType({**self.options, "systems": ",".join(systems)}),
            MappingProxyType({k: v[idx] for k, v in self.segment_scores.items()}),
            self.files, self.attack_systems, self.attack_hypotheses, self.language,
        )


def frozen_mapping(d: dict) -> Mapping:
    """A read-only copy of ``d``."""
    return MappingProxyType(dict(d))


def require_dir(path: Path, what: str) -> Path:
    """``path`` if it is a folder, else a MissingDataError saying how to get the data."""
    if not path.is_dir():
        raise MissingDataError(
            f"{path}: {what} not found. Run `make data` (or `make data MIRROR=...`) or set "
            f"GEC_META_DATA to the data directory."
        )
    return path
