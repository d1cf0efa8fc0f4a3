"""ERRANT and SentERRANT (Bryant et al. 2017) on the shared edit core.

Edits come from the process-wide ERRANT extractor (:mod:`gec_meta.edits.extract`), except for
a system read from a hypothesis M2 file (``gec-meta score --hyp-m2``): its sentences carry their
edits (:func:`~gec_meta.metrics.edit.core.given_edits`), which are scored as they are (through
:func:`gold_to_edits`), as ``errant_compare -hyp HYP.m2 -ref REF.m2`` does.  Matching is
``errant_compare``'s span-based correction matching: an edit is ``(o_start, o_end, c_str)``;
``noop`` and ``UNK`` edits are dropped.  ``level: sentence`` is SentERRANT (Gong et al. 2022,
Table 4 "sentence-level" columns): the mean over sentences of the sentence-level F_beta against
the best reference of each sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.edits.edit import Edit
from gec_meta.edits.edit_sets import errant_edit_sets
from gec_meta.edits.extract import significant, unique_edits
from gec_meta.edits.languages import edit_extractor
from gec_meta.metrics.edit.core import (EditMatch, EditMetric, given_edits, match_by_key, reference_kind_for,
                                        rounded_running_best)


def gold_to_edits(gold: Sequence) -> tuple[Edit, ...]:
    """Core edits of M2 gold edits (first correction alternative; noop/UNK dropped; each
    (start, end, correction) once, as errant_compare keys them: :func:`unique_edits`)."""
    return unique_edits(significant(tuple(Edit.span(g.start, g.end, g.corrections[0], g.type)
                                          for g in gold if not g.is_noop)))


def given_or_extracted(
    sources: Sequence[str], texts: Sequence[Sequence[str]], threads: int | None = None, unique: bool = False,
    language: str = "en",
) -> tuple[list[Sequence[tuple]], list[bool]]:
    """The edits of every row of texts: the ones it carries, else ERRANT's.

    A row whose sentences all carry their edits (:func:`~gec_meta.metrics.edit.core.given_edits`:
    a hypothesis M2 file's) keeps those :class:`~gec_meta.data.m2.GoldEdit` tuples; the other
    rows get ERRANT's :class:`~gec_meta.edits.edit.Edit` tuples from one batched extraction.

    Args:
        sources: shape (N,).
        texts: shape (T, N).
        threads: caps ERRANT's worker processes.
        unique: extracted edits each once (:func:`~gec_meta.edits.edit_sets.errant_edit_sets`).
        language: the texts' language (picks the extractor).

    Returns:
        (edits of shape (T, N), whether each row's edits are given, shape (T,)).
    """
    given = [given_edits(row) for row in texts]
    todo = [t for t, g in enumerate(given) if g is None]
    extracted = dict(zip(todo, errant_edit_sets(sources, [texts[t] for t in todo], threads, unique,
                                                          language))) if todo else {}
    return [extracted[t] if g is None else g for t, g in enumerate(given)], [g is not None for g in given]


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

    Hypotheses read from an M2 file are scored with their own edits (see the module docstring).
    """

    reference_edits: str = "extract"

    corpus_name: ClassVar[str] = "errant"
    sentence_name: ClassVar[str] = "senterrant"
    accepts_hypothesis_edits: ClassVar[bool] = True
    version: ClassVar[str] = "1"

    def __post_init__(self):
        super().__post_init__()
        reference_kind_for(self.reference_edits)  # checks the value

    @property
    def reference_kind(self) -> str:
        return reference_kind_for(self.reference_edits)

    def hypothesis_edits(
        self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]]
    ) -> list[list[tuple[Edit, ...]]]:
        """Edits of every hypothesis, shape (S, N): a system's given edits (its M2 file's, as
        :func:`gold_to_edits`), else ERRANT's."""
        edits, given = given_or_extracted(sources, hypotheses, self.threads, unique=True, language=self._language)
        return [[gold_to_edits(e) for e in row] if g else self._partition(row) for row, g in zip(edits, given)]

    def _partition(self, row: Sequence[tuple[Edit, ...]]) -> list[tuple[Edit, ...]]:
        """Extracted edits as this metric reads them: as they are, except that the weighted
        variants (PT-ERRANT, UOT-ERRANT, which apply edit sets to the source) read only the first
        ChERRANT alignment's on Chinese (ChERRANT's further alignments overlap it)."""
        if self._language != "zh" or type(self).edit_stats is EditMetric.edit_stats:
            return list(row)
        from gec_meta.edits.cherrant import first_alignment

        return [first_alignment(e) for e in row]

    def reference_edit_sets(
        self, sources: Sequence[str], references: Sequence[Sequence[object]]
    ) -> list[list[tuple[Edit, ...]]]:
        """Edits of every reference, shape (R, N)."""
        if self.reference_edits == "gold":
            return [[gold_to_edits(ref[n]) for n in range(len(sources))] for ref in references]
        return [self._partition(row)
                for row in errant_edit_sets(sources, references, self.threads, unique=True, language=self._language)]

    @property
    def cherrant(self) -> bool:
        """True when the counts are ChERRANT's (:mod:`.cherrant`): Chinese, edits extracted from
        the hypotheses and references, unit weights (not PT-ERRANT / UOT-ERRANT)."""
        return (self._language == "zh" and self.reference_edits == "extract"
                and type(self).edit_stats is EditMetric.edit_stats)

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        if not self.cherrant or any(given_edits(h) is not None for h in hypotheses):
            return super().statistics(sources, hypotheses, references)
        from gec_meta.metrics.base import present_mask
        from gec_meta.metrics.edit.cherrant import cherrant_statistics

        N, S = len(sources), len(hypotheses)
        texts = list(hypotheses) + list(references)
        flat = edit_extractor("zh").extract([(sources[n], t[n]) for t in texts for n in range(N)], self.threads)
        rows = [flat[k * N:(k + 1) * N] for k in range(len(texts))]
        return cherrant_statistics(rows[:S], rows[S:], present_mask(references))

    def running_best(self, cand: np.ndarray, own: np.ndarray) -> np.ndarray:
        """errant_compare's choice (ChERRANT's ``compare_m2_for_evaluation.py`` likewise):
        running F_beta rounded to 4 decimals, then TP, -FP, -FN (:func:`rounded_running_best`),
        for ERRANT's own counts.  The weighted variants compare the unrounded F, as their
        authors' code does: UOT-ERRANT (F, TP, -FP, -FN, :func:`~gec_meta.metrics.edit.core._first_best`,
        as gotutiyan/uot-errant through gec-metrics), PT-ERRANT its own rule
        (:meth:`gec_meta.metrics.edit.pt.PTErrant.running_best`, PT-M2's code)."""
        if type(self).edit_stats is EditMetric.edit_stats:
            return rounded_running_best(cand, self.beta)
        return super().running_best(cand, own)

    def match(self, sources, hypotheses, references) -> np.ndarray:
        if self.reference_edits == "extract":
            # One extraction for the references and the hypotheses that carry no edits: every
            # text (the sources above all) is parsed once and the worker pool starts once; the
            # calls below then read the extractor's store.
            N = len(sources)
            texts = [h for h in hypotheses if given_edits(h) is None] + list(references)
            edit_extractor(self._language).extract([(sources[n], t[n]) for t in texts for n in range(N)],
                                                   self.threads)
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
