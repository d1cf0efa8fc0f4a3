"""M2 (Dahlmeier & Ng 2012, m2scorer 3.2) and, with ``level: sentence``, SentM2
(sentence-averaged M2, as PT-M2's ``sentm2`` base, Gong et al. 2022) on the shared edit core.

Matching is our exact re-implementation of m2scorer (:mod:`gec_meta.edits.m2scorer`):
the hypothesis edits are the best path of m2scorer's edit lattice for each annotator's gold
edits, so ``match`` returns one :class:`EditMatch` per (system, sentence, annotator) whose
``hyp_edits`` are that path's edits and whose ``ref_edits`` are that annotator's gold edits.
The searches are stored by content (:mod:`gec_meta.edits.m2_matches`), so every metric of the
family (SentM2, PT-M2 with any encoder or weighting) on the same data reads them.

References are gold edits, not text (``reference_kind = "m2"``): item (r, n) of
``references`` is the tuple of :class:`~gec_meta.data.m2.GoldEdit` of annotator r for sentence
n (noops excluded, e.g. ``sent.edits_of(r)``).

Annotator choice (m2scorer's ``batch_multi_pre_rec_f1``): at corpus level the annotator of
each sentence maximises F_beta of the running totals plus this sentence, computed as m2scorer's
``comp_f1`` = (1+b^2) c / (b^2 g + e) on counts (c = correct, e = proposed, g = gold); ties go
to more correct, then to smaller e + b^2 g, then to the first annotator.  This differs from
errant_compare's (F, TP, -FP, -FN) rule whenever the running F is 0 (e.g. the first sentences)
and in the float arithmetic of F, so :meth:`M2.corpus_best_reference` is overridden.  The
sentence-level choice (:meth:`M2.best_reference`, used by SentM2) is the same rule with
zero running totals, which is what PT-M2's ``batch_multi_pre_rec_f1_sent`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.fields import integer, positive, valid
from gec_meta.edits.edit import Edit
from gec_meta.metrics.edit.core import EditMatch, EditMetric
from gec_meta.edits.m2_matches import GoldKey, Stored, gold_key, m2_match_store
from gec_meta.edits.m2scorer import choose_annotator


def m2_corpus_prf(stats: np.ndarray, beta: float = 0.5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """m2scorer's corpus P, R, F_beta of every system.

    Args:
        stats: shape (S, N, R, 3), statistics of :class:`M2`.
        beta: F beta.

    Returns:
        (P, R, F), each of shape (S,).
    """
    metric = M2(beta=beta)
    return metric.prf(metric.corpus_stats(stats))


@dataclass(frozen=True)
class M2(EditMetric):
    """m2scorer 3.2's M2 score (CoNLL-2013/2014 official metric).

    Fields:
        beta: F-measure beta (0.5 in CoNLL-2014).
        max_unchanged_words: most unchanged tokens a merged hypothesis edit may span
            (m2scorer's ``--max_unchanged_words``, default 2).
        ignore_whitespace_casing: drop hypothesis edits that only change case or whitespace
            (m2scorer's ``--ignore_whitespace_casing``).
        level: ``corpus`` (m2scorer) | ``sentence`` (SentM2, name ``sentm2``: the mean over
            sentences of F_beta against the best annotator of each sentence; sentence F uses
            m2scorer's conventions, P = 1 with no proposed edit, R = 1 with no gold edit, F = 0
            if P = R = 0).
    """

    beta: float = field(default=0.5, metadata=valid(positive()))
    max_unchanged_words: int = field(default=2, metadata=valid(integer(0)))
    ignore_whitespace_casing: bool = False

    corpus_name: ClassVar[str] = "m2"
    sentence_name: ClassVar[str] = "sentm2"
    reference_kind: ClassVar[str] = "m2"
    version: ClassVar[str] = "1"

    # ----------------------------------------------------------------- stage 1
    def match(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[Sequence[str]],
        references: Sequence[Sequence[Sequence]],
    ) -> np.ndarray:
        """m2scorer's hypothesis path edits and gold matches.

        Args:
            sources: shape (N,), tokenised sources.
            hypotheses: shape (S, N), tokenised hypotheses.
            references: shape (R, N), each item the gold edits (``GoldEdit``) of one annotator.

        Returns:
            object array (S, N, R) of :class:`EditMatch`; identical (source, hypothesis, gold)
            triples share one object.
        """
        S, N, R = len(hypotheses), len(sources), len(references)
        for r in references:
            if len(r) != N:
                raise ValueError(f"references have {len(r)} sentences, sources {N}")
        # One task item per distinct (sentence, hypothesis): its lattice and best paths.
        items: list[tuple[int, str]] = []
        index = np.empty((S, N), dtype=np.int64)
        for n in range(N):
            seen: dict[str, int] = {}
            for s in range(S):
                hyp = " ".join(hypotheses[s][n].split())
                k = seen.get(hyp)
                if k is None:
                    k = seen[hyp] = len(items)
                    items.append((n, hyp))
                index[s, n] = k
        golds = [[gold_key(ref[n]) for n in range(N)] for ref in references]
        # Searched once per (source, hypothesis, gold edits) and option pair, whatever metric of
        # the family asks (m2, sentm2, pt_m2 at any beta, with any encoder): the disk store.
        store = m2_match_store(self.max_unchanged_words, self.ignore_whitespace_casing)
        rows = store.matches([" ".join(x.split()) for x in sources], golds, items, threads=self.threads)
        gold_edits = [[_gold_edits(g) for g in ref] for ref in golds]  # (R, N)
        table = np.empty((len(items), R), dtype=object)
        for k, row in enumerate(rows):
            n = items[k][0]
            built: dict[GoldKey, EditMatch] = {}  # identical gold edits (e.g. a copied annotator): one object
            for r, stored in enumerate(row):
                gold = golds[r][n]
                m = built.get(gold)
                if m is None:
                    m = built[gold] = _edit_match(stored, gold, gold_edits[r][n])
                table[k, r] = m
        return table[index]  # (S, N, R): every system's item

    # ----------------------------------------------------------------- stage 2
    def best_reference(self, stats: np.ndarray) -> np.ndarray:
        """Per sentence, m2scorer's annotator rule with zero running totals (PT-M2's sentm2).

        Args:
            stats: shape (S, N, R, 3).

        Returns:
            int array (S, N).
        """
        return self._choose_annotators(stats, running=False)

    def corpus_best_reference(self, stats: np.ndarray) -> np.ndarray:
        """m2scorer's corpus rule: per sentence, the annotator that maximises F of the running
        totals plus this sentence (see the module docstring for the tie rules).

        Args:
            stats: shape (S, N, R, 3).

        Returns:
            int array (S, N).
        """
        return self._choose_annotators(stats, running=True)

    def _choose_annotators(self, stats: np.ndarray, running: bool) -> np.ndarray:
        """m2scorer's ``choose_annotator`` for every (system, sentence), against the running
        (correct, proposed, gold) totals of the system (``running``) or zero totals."""
        S, N, R, _ = stats.shape
        best = np.zeros((S, N), dtype=np.int64)
        if R == 1:
            return best
        cep = _cep(stats)
        for s in range(S):
            c = e = g = 0.0
            for n in range(N):
                k = choose_annotator(cep[s][n], (c, e, g), self.beta)
                best[s, n] = k
                if running:
                    ck, ek, gk = cep[s][n][k]
                    c, e, g = c + ck, e + ek, g + gk
        return best


def _gold_edits(gold: GoldKey) -> tuple[Edit, ...]:
    """A sentence's gold edits of one annotator as a match reports them when no hypothesis edit
    matched an alternative other than the first (the common case: one object per sentence)."""
    return tuple(Edit(s, e, -1, -1, "", cors[0], t) for s, e, t, cors in gold)


def _edit_match(stored: Stored, gold: GoldKey, gold_edits: tuple[Edit, ...]) -> EditMatch:
    """The :class:`EditMatch` of a stored match (:mod:`gec_meta.edits.m2_matches`) and the gold
    edits it was computed for (``gold_edits``: :func:`_gold_edits` of them)."""
    hyp_edits, hyp_matched, gold_matched = stored
    ref = gold_edits
    for (_, _, _, cors), m in zip(gold, gold_matched):
        if m is not None and m != cors[0]:  # a later alternative matched: reported as the edit
            ref = tuple(Edit(s, e, -1, -1, "", m if m is not None else cors[0], t)
                        for (s, e, t, cors), m in zip(gold, gold_matched))
            break
    # EditMatch counts tp as matched hypothesis edits; m2scorer counts matched pairs.  They
    # differ only if one hypothesis edit matches two gold edits of one annotator (duplicate
    # A lines), which no dataset we use has.
    return EditMatch(tuple([Edit(s, e, -1, -1, "", c, t) for s, e, c, t in hyp_edits]), ref,
                     tuple(hyp_matched), tuple([m is not None for m in gold_matched]))


def _cep(stats: np.ndarray) -> list:
    """(correct, proposed, gold) as nested Python float lists, shape (S, N, R, 3)."""
    tp, fp, fn = stats[..., 0], stats[..., 1], stats[..., 2]
    return np.stack([tp, tp + fp, tp + fn], axis=-1).tolist()
