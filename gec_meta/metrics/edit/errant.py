"""ERRANT and SentERRANT (Bryant et al. 2017) on the shared edit core.

Edits come from the process-wide ERRANT extractor (:mod:`gec_meta.edits.extract`).  Matching is
``errant_compare``'s span-based correction matching: an edit is ``(o_start, o_end, c_str)``;
``noop`` and ``UNK`` edits are dropped.  ``level: sentence`` is SentERRANT (Gong et al. 2022,
Table 4 "sentence-level" columns): the mean over sentences of the sentence-level F_beta against
the best reference of each sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.edits.edit import IGNORED_TYPES, Edit
from gec_meta.edits.extract import errant_edit_sets, errant_extractor
from gec_meta.errors import ConfigError
from gec_meta.metrics.edit.core import EditMatch, EditMetric, match_by_key


def gold_to_edits(gold: Sequence) -> tuple[Edit, ...]:
    """Core edits of M2 gold edits (first correction alternative; noop/UNK dropped)."""
    return tuple(
        Edit.span(g.start, g.end, g.corrections[0], g.type)
        for g in gold
        if not g.is_noop and g.type not in IGNORED_TYPES
    )


@dataclass(frozen=True)
class Errant(EditMetric):
    """Corpus-level ERRANT F_beta (``errant_compare``).

    Fields:
        beta: 0.5 (CoNLL-2014).
        reference_edits: ``extract`` re-extracts reference edits with ERRANT from the plain-text
            references (what errant_compare on ``errant_parallel`` output does, and what the
            "Rethinking" / UOT-ERRANT papers did); ``gold`` uses the references' M2 gold edits
            as they are (closer to the PT-M2 paper's setting for ERRANT on CoNLL-2014).
        level: ``corpus`` (errant_compare) | ``sentence`` (SentERRANT, name ``senterrant``).
        threads: caps ERRANT's worker processes (the run's ``threads``).
    """

    reference_edits: str = "extract"

    corpus_name: ClassVar[str] = "errant"
    sentence_name: ClassVar[str] = "senterrant"
    version: ClassVar[str] = "1"

    def __post_init__(self):
        super().__post_init__()
        if self.reference_edits not in ("extract", "gold"):
            raise ConfigError(
                f"metric.reference_edits must be 'extract' or 'gold', got {self.reference_edits!r}"
            )

    @property
    def reference_kind(self) -> str:
        return "m2" if self.reference_edits == "gold" else "text"

    def hypothesis_edits(
        self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]]
    ) -> list[list[tuple[Edit, ...]]]:
        """ERRANT edits of every hypothesis, shape (S, N)."""
        return errant_edit_sets(sources, hypotheses, self.threads)

    def reference_edit_sets(
        self, sources: Sequence[str], references: Sequence[Sequence[object]]
    ) -> list[list[tuple[Edit, ...]]]:
        """Edits of every reference, shape (R, N)."""
        if self.reference_edits == "gold":
            return [[gold_to_edits(ref[n]) for n in range(len(sources))] for ref in references]
        return errant_edit_sets(sources, references, self.threads)

    def match(self, sources, hypotheses, references) -> np.ndarray:
        if self.reference_edits == "extract":
            # One extraction for hypotheses and references: every text (the sources above
            # all) is parsed once and the worker pool starts once; the calls below then read
            # the extractor's store.
            N = len(sources)
            errant_extractor().extract(
                [(sources[n], t[n]) for t in (*hypotheses, *references) for n in range(N)], self.threads)
        hyp = self.hypothesis_edits(sources, hypotheses)
        ref = self.reference_edit_sets(sources, references)
        S, N, R = len(hypotheses), len(sources), len(references)
        out = np.empty((S, N, R), dtype=object)
        memo: dict[tuple, EditMatch] = {}
        for s in range(S):
            for n in range(N):
                h = hyp[s][n]
                for r in range(R):
                    key = (h, ref[r][n])
                    m = memo.get(key)
                    if m is None:
                        m = memo[key] = match_by_key(h, ref[r][n])
                    out[s, n, r] = m
        return out
