"""GREEN: n-gram F-score over source / hypothesis / reference n-gram multisets.

Koyama, Goto, Kamigaito, Funakoshi, Watanabe and Okumura (INLG 2024), "n-gram F-score for
evaluating grammatical error correction" ("GREEN").  For every n-gram order n = 1..max_n and
every n-gram g with multiplicities s = count_S(g), h = count_H(g), r = count_R(g) in the source,
hypothesis and reference, GREEN classifies the counts into

    TK (true keep)        min(s, h, r)                 -> TP
    TI (true insertion)   max(min(r, h) - s, 0)        -> TP
    TD (true deletion)    max(s - max(r, h), 0)        -> TP
    OI (over-insertion)   max(h - max(s, r), 0)        -> FP
    OD (over-deletion)    max(min(s, r) - h, 0)        -> FP
    UI (under-insertion)  max(r - max(s, h), 0)        -> FN
    UD (under-deletion)   max(min(s, h) - r, 0)        -> FN

and sums them over the n-grams of each order.  Precision and recall of order n use the
conventions of :func:`gec_meta.metrics.base.f_beta` (P = 1 when FP = 0, R = 1 when FN = 0);
the overall P and R are the geometric means over n (0 if any order is 0), and the score is
F_beta(P, R) with beta = 2 (Koyama et al. 2024; Goto et al. 2025, "Rethinking ...", App. A,
and UOT-ERRANT, Sec. 5, use n <= 4 and F_2.0).

Multiple references and aggregation follow gec-metrics 0.1.1 (``GREEN``), with which the
published SEEDA correlations were computed:

* sentence level: the reference with the highest sentence score (ties -> lowest index);
* corpus level: the per-order TP/FP/FN of each sentence's best reference are **accumulated**
  over the corpus and scored once (not a mean of sentence scores).

Tokens are ``str.split()`` of the whitespace-normalised strings; an empty string has no
n-grams.
"""

from __future__ import annotations

import math

from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.fields import integer, positive, valid
from gec_meta.metrics.base import ANY_LANGUAGE, Metric

NgramCounts = tuple[Counter, ...]

#: The highest n-gram order accepted (``metric.max_n`` of GREEN and GLEU; the papers use 4):
#: statistics hold 2 values per order, so the bound caps their size and the counting work.
MAX_NGRAM_ORDER = 10


TOKENS = ("split", "space")


def tokenize(sentence: str, tokens: str = "split") -> list[str]:
    """``split``: ``sentence.split()`` (the official scripts); ``space``: ``sentence.split(' ')``
    as gec-metrics 0.1.1 does -- a leading, trailing or doubled space gives an empty token, and
    an empty sentence has none (its ``cached_get_all_ngrams`` returns no n-gram for '')."""
    if tokens == "split":
        return sentence.split()
    return sentence.split(" ") if sentence else []


class NgramCache:
    """Per-string n-gram multisets, computed once per distinct string.

    ``get(s)[n - 1]`` is the Counter of the n-grams (tuples of tokens) of ``tokenize(s, tokens)``.
    """

    def __init__(self, max_n: int, tokens: str = "split"):
        self.max_n = max_n
        self.tokens = tokens
        self._cache: dict[str, NgramCounts] = {}

    def get(self, sentence: str) -> NgramCounts:
        got = self._cache.get(sentence)
        if got is None:
            toks = tokenize(sentence, self.tokens)
            # zip of the n shifted token lists: the n-grams (tuples) in order, built in C
            got = tuple(Counter(zip(*(toks[k:] for k in range(n)))) for n in range(1, self.max_n + 1))
            self._cache[sentence] = got
        return got


def validate_inputs(
    sources: Sequence[str],
    hypotheses: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
) -> tuple[int, int, int]:
    """Check the shapes of a reference-based metric's input.

    Returns:
        (num_systems, num_sentences, num_references).

    Raises:
        ValueError: a system or a reference set whose length differs from the sources', no
            references, no systems, or a bare string where a list of sentences was expected.
    """
    if isinstance(sources, str):
        raise ValueError("sources must be a sequence of sentences, not a single string")
    n = len(sources)
    for name, rows, axis, item in (("hypotheses", hypotheses, "num_systems", "system {k} has {m} hypotheses"),
                                   ("references", references, "num_references", "reference set {k} has {m} sentences")):
        if isinstance(rows, str) or len(rows) == 0:
            raise ValueError(f"{name} must be a non-empty sequence ({axis}, num_sentences)")
        for k, row in enumerate(rows):
            if isinstance(row, str):
                raise ValueError(f"{name}[{k}] is a string; {name} must have shape ({axis}, num_sentences)")
            if len(row) != n:
                raise ValueError(item.format(k=k, m=len(row)) + f" but there are {n} sources")
    return len(hypotheses), n, len(references)


def dedupe_triples(
    sources: Sequence[str],
    hypotheses: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
) -> tuple[list[tuple[str, str, str]], np.ndarray]:
    """Distinct (source, hypothesis, reference) triples and where each (s, i, r) maps.

    Returns:
        (triples, index) with ``index`` an int array of shape (S, N, R) into ``triples``.
    """
    num_sys, num_sent, num_ref = len(hypotheses), len(sources), len(references)
    ids: dict[tuple[str, str, str], int] = {}
    index = np.empty((num_sys, num_sent, num_ref), dtype=np.int64)
    for s, hyp in enumerate(hypotheses):
        for i in range(num_sent):
            src, h = sources[i], hyp[i]
            for r in range(num_ref):
                key = (src, h, references[r][i])
                j = ids.get(key)
                if j is None:
                    j = ids[key] = len(ids)
                index[s, i, r] = j
    return list(ids), index


# GREEN's log and exp are the C library's (``math.log``/``math.exp``, as gec-metrics' GREEN calls
# them), not numpy's: numpy has its own AVX-512 float64 log/exp, which differ from the C library's
# in the last bit for some arguments, so GREEN's scores (and its epsilon*, clusters and ranks)
# depended on the CPU class (CHANGELOG 2026-11-29).  On CPUs without AVX-512 numpy calls the C
# library, so these are the values GREEN always had there.

#: Largest table of (count, total) pairs :func:`_log_ratios` indexes densely (entries).
_DENSE_PAIRS = 1 << 22


def _log_ratios(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``math.log(num / den)`` of every element, once per distinct pair (precisions and recalls
    of sentences are ratios of small counts: ~100 distinct pairs among GJG15's 136k).

    Args:
        num, den: integer-valued float64 counts, 0 < num <= den, one shape.

    Returns:
        float64, that shape.
    """
    n, d = num.astype(np.int64), den.astype(np.int64)
    if n.size == 0:
        return np.zeros(n.shape)
    m = int(d.max()) + 1
    if m * m <= _DENSE_PAIRS and np.array_equal(n, num) and np.array_equal(d, den):
        key = n * m + d  # a dense table of the pairs present: no sort
        present = np.zeros(m * m, dtype=bool)
        present[key] = True
        keys = np.flatnonzero(present)
        table = np.zeros(m * m)
        table[keys] = [math.log((k // m) / (k % m)) for k in keys.tolist()]  # int / int: the float num / den
        return table[key]
    ratios, inverse = np.unique(num / den, return_inverse=True)  # corpus-level totals
    return np.fromiter(map(math.log, ratios.tolist()), np.float64, len(ratios))[inverse].reshape(num.shape)


def _geometric_mean_of_ratios(tp: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Geometric mean over the last axis of tp / (tp + other), each ratio 1 where other = 0
    (GREEN's precision with other = FP, recall with other = FN); 0 where any ratio is 0.

    Args:
        tp, other: integer-valued float64 counts, shape (..., K).

    Returns:
        shape (...): ``math.exp`` of the mean of the ``math.log`` of the ratios (numpy's
        left-to-right sum for K <= 8), gec-metrics' formula.
    """
    defined = other != 0
    positive = np.all(~defined | (tp > 0), axis=-1)
    logs = np.zeros(tp.shape)
    use = defined & (tp > 0)
    logs[use] = _log_ratios(tp[use], tp[use] + other[use])
    means = logs.mean(axis=-1)
    gm = np.where(positive, 1.0, 0.0)  # exp(0) = 1 exactly: most sentences' precisions are all 1
    todo = positive & (means != 0)
    gm[todo] = np.fromiter(map(math.exp, means[todo].tolist()), np.float64)
    return gm


@dataclass(frozen=True)
class GREEN(Metric):
    """GREEN (Koyama et al. 2024) as sufficient statistics.

    Fields:
        max_n: highest n-gram order (4, Koyama et al. 2024).
        beta: the F-measure beta (2.0, Koyama et al. 2024).  Affects stage 2 only.

    Statistics: shape (S, N, R, 3 * max_n), last axis ``(tp_1, fp_1, fn_1, ..., tp_n, fp_n,
    fn_n)``: the GREEN n-gram counts of order n (see the module docstring) of one
    (system, sentence, reference).
    """

    languages: ClassVar[tuple[str, ...] | str] = ANY_LANGUAGE  # reads tokens (Chinese: characters)

    name: ClassVar[str] = "green"
    version: ClassVar[str] = "1"

    max_n: int = field(default=4, metadata=valid(integer(1, hi=MAX_NGRAM_ORDER)))
    beta: float = field(default=2.0, metadata=valid(positive()))

    @property
    def stat_names(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(f"{k}_{n}" for n in range(1, self.max_n + 1) for k in ("tp", "fp", "fn"))

    def stats_options(self) -> dict[str, object]:
        return {"max_n": self.max_n}

    # ------------------------------------------------------------------ stage 1
    def statistics(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[Sequence[str]],
        references: Sequence[Sequence[str]],
    ) -> np.ndarray:
        """GREEN n-gram counts of every (system, sentence, reference) (arguments as
        :meth:`Metric.statistics`, R >= 1): float64 array of shape (S, N, R, 3 * max_n); see the
        class docstring."""
        validate_inputs(sources, hypotheses, references)
        triples, index = dedupe_triples(sources, hypotheses, references)
        cache = NgramCache(self.max_n)
        table = np.zeros((len(triples), self.max_n, 3), dtype=np.float64)
        for j, (src, hyp, ref) in enumerate(triples):
            cs, ch, cr = cache.get(src), cache.get(hyp), cache.get(ref)
            for n in range(self.max_n):
                tp = fp = fn = 0
                s_n, h_n, r_n = cs[n], ch[n], cr[n]
                for g in s_n.keys() | h_n.keys() | r_n.keys():
                    s, h, r = s_n.get(g, 0), h_n.get(g, 0), r_n.get(g, 0)
                    # The module docstring's seven counts, with two exact shortcuts for what most
                    # n-grams are (integers, so the same sums): kept as in the source (s == h:
                    # TK = min(s, r), UI + UD = |r - s|, the rest 0) or right in the source already
                    # (s == r: TK = min(s, h), OI + OD = |h - s|, the rest 0).
                    if s == h or s == r:
                        x = r if s == h else h  # the count that differs from the source's, if any
                        tp += s if s < x else x
                        if s == h:
                            fn += abs(x - s)
                        else:
                            fp += abs(x - s)
                    else:
                        # TK + TI + TD
                        tp += min(s, h, r) + max(min(r, h) - s, 0) + max(s - max(r, h), 0)
                        # OI + OD
                        fp += max(h - max(s, r), 0) + max(min(s, r) - h, 0)
                        # UI + UD
                        fn += max(r - max(s, h), 0) + max(min(s, h) - r, 0)
                table[j, n] = (tp, fp, fn)
        return table.reshape(len(triples), 3 * self.max_n)[index]

    # ------------------------------------------------------------------ stage 2
    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        """GREEN F_beta of statistics of shape (..., 3 * max_n); returns shape (...)."""
        stats = np.asarray(stats, dtype=np.float64)
        if stats.shape[-1] != 3 * self.max_n:
            raise ValueError(f"GREEN statistics need {3 * self.max_n} columns, got {stats.shape[-1]}")
        s = stats.reshape(stats.shape[:-1] + (self.max_n, 3))
        tp, fp, fn = s[..., 0], s[..., 1], s[..., 2]
        p, r = _geometric_mean_of_ratios(tp, fp), _geometric_mean_of_ratios(tp, fn)
        b2 = float(self.beta) ** 2
        denom = b2 * p + r
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(p + r > 0, (1 + b2) * p * r / np.where(denom == 0, 1.0, denom), 0.0)
        return f

    corpus_reduction = None  # corpus n-gram counts

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        """Corpus GREEN: best-reference counts summed over sentences, scored once.

        Args:
            stats: shape (S, N, R, 3 * max_n).

        Returns:
            shape (S,).
        """
        return self.score_from_stats(self.chosen_reference_stats(stats)[:, :, 0, :].sum(axis=1))

    def chosen_reference_stats(self, stats: np.ndarray) -> np.ndarray:
        """Every sentence's counts against its best reference, shape (S, N, 1, K): their sum
        is the corpus statistic (the choice is per sentence, so swapping sentences between
        systems for soft pairwise accuracy keeps it exact)."""
        best = self.best_reference(stats)
        return np.take_along_axis(stats, best[:, :, None, None], axis=2)
