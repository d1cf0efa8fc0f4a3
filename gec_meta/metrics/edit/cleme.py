"""CLEME (Ye et al., EMNLP 2023, "CLEME: Debiasing Multi-reference Evaluation for
Grammatical Error Correction"): chunk-level evaluation with length weighting.

**Chunk partition** (Ye et al. 2023, §3.1).  The ERRANT edits of the hypothesis and of every
reference are pooled; their source intervals are merged whenever they overlap or touch
(start <= previous end).  The source is then cut into *corrected* chunks (a merged interval),
*dummy* chunks (an empty merged interval: an insertion point) and *unchanged* chunks (the
stretches in between), the same cut for every correction.  A correction's chunk is *edited*
when it has an edit inside that interval; its text is the slice of the correction aligned to
the interval (through the source-to-target token map of its own edits).

**Counting** (Ye et al. 2023, §3.2), with H the hypothesis chunk and R_k the references':

* ``dependent`` (one count per reference): H edited -> TP if H == R_k else FP; H unedited ->
  FN if H != R_k else TN.  The best reference is chosen per sentence.
* ``independent`` (one count over all references): H edited -> TP if H equals some R_k,
  else FP; H unedited -> FN if *every* reference edited that chunk, else TN.  The statistics
  are repeated on the reference axis.

**Length weighting** (Ye et al. 2023, Eq. 4-5): a chunk of length l = max(|src|, |tgt|) (the
hypothesis chunk) weighs ``clip(alpha / (1 + (alpha - 1) * exp(-(l - c))), min, max)``, or with
``exp(+(l - c))`` when reversed (FP: longer wrong edits cost less), where the bias c is the mean
length of the edited reference chunks over the whole corpus (per system: the partition depends
on the hypothesis).  TN always weighs 1.  Defaults: the settings of the UOT-ERRANT paper (Goto
et al. 2025, §4.1 "the scale factors and thresholds for TP, FP, and FN follow Ye et al."), as
its code sets them (gotutiyan/uot-errant ``experiments/cleme.py``): TP alpha 10, [2.5, 10]; FP
alpha 10, [0.25, 1.0], reversed; FN alpha 2, [0.75, 1.25] -- CLEME's SentCLEME TP/FP settings
with its corpus FN setting, a mix no configuration of CLEME's own code uses (its
SentCLEME-independent has FN alpha 10, [1, 1]: pass those to reproduce CLEME's sentence-level
output).  When no reference edits anything, the bias is 0 (the official mean of no lengths is NaN).

**Scores**: F0.5 (P = 1 without proposals, R = 1 without gold, CLEME's ``compute_f``).  At
sentence level CLEME rounds P, R, F and accuracy to 4 decimals (Python's ``round`` of a float:
:func:`~gec_meta.metrics.edit.core.python_round4`) and chooses the reference by F, then P, then
R, then the *lower* accuracy (the sentence scorer used by UOT-ERRANT's CLEME wrapper); ``level =
sentence`` makes the corpus score the mean sentence F (SentCLEME, what the UOT-ERRANT paper
reports; not rounded: the official script prints it rounded to 4 decimals by numpy, 0.79625 as
0.7962), ``level = corpus`` accumulates the weighted counts (CLEME's corpus scorer), each
sentence's reference chosen as its ``CorpusScorer`` does: the largest F of the running totals
rounded to 4 decimals, then the sentence's own TP, -FP, -FN, TN (:meth:`CLEME.running_best`).

**Edits from M2 files** (CLEME's own input: its ``scripts/evaluate.py`` reads a reference and a
hypothesis M2 file, Ye et al. 2023 code v1.0).  A hypothesis read from an M2 file
(:func:`gec_meta.data.m2.read_hypothesis_m2`) is scored with the edits it carries, and
``reference_edits: gold`` takes the reference set's M2 gold edits as they are instead of
re-extracting edits from the reference texts; an M2 edit's target span is found as CLEME's
``M2DataReader.build_target`` does (:func:`gold_spans`).  With CLEME's corpus-level weights
(TP, FP, FN: alpha 2, [0.75, 1.25], FP reversed; ``level: corpus``) and its example files this
reproduces CLEME's published corpus output (tests/test_cleme_gold.py).  Gold edits keep every
type but noop (CLEME's reader drops only noop), while extracted edits also drop UNK.  An M2
sentence without lines of an annotator: the reference set decides what that annotator's
reference is (the source, or none: ``missing_annotator``), which follows CLEME v1.1's reader
(the annotator is dropped); v1.0's reader drops a missing *last* annotator but scores a missing
*first* one as the unchanged source (it asserts on larger gaps, e.g. BN-10GEC's ``BN.m2``).  A
repeated A line counts once (:func:`gec_meta.data.m2.drop_duplicate_edits`; CLEME applies it
twice, deleting or inserting again), and of a correction ``B||Z`` the first alternative is the
reference's text (CLEME keeps ``B||Z`` as one literal token).

Quirks of the official implementation kept: empty references are ignored when there are at
least two references (its "Ignore empty reference"); edits of type noop/UNK are dropped (as in
the harness's ERRANT).  Kept only with ``empty_hypothesis: cleme``: the official loop also
drops an *empty hypothesis* (scoring the first kept reference in its place) and skips the text
after each one it drops; by default the hypothesis is always scored.

Statistics: shape (S, N, R, 4), last axis (tp, fp, fn, tn), length-weighted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.data.m2 import apply_edits as apply_gold_edits
from gec_meta.errors import ConfigError
from gec_meta.metrics.base import f_beta, present_mask
from gec_meta.metrics.edit.core import PRFMetric, lexicographic_best, python_round4, reference_kind_for
from gec_meta.metrics.edit.errant import given_or_extracted
from gec_meta.parallel import parallel_map

#: Work (characters of the hypotheses, summed over systems) from which CLEME's chunking starts
#: worker processes (one system per task): ~0.2 s of it in one process (4-7e-7 CPU s per unit
#: on GJG15 slices, AMD EPYC); a 2-worker pool costs ~30 ms of CPU to start and stop.
MIN_PARALLEL_WORK = 300_000

# (o_start, o_end, c_start, c_end) of one edit.
Span = tuple[int, int, int, int]


def token_map(num_src: int, edits: Sequence[Span]) -> dict[int, int]:
    """Source position -> target position of one correction (CLEME's ``map_parallel``).

    Positions outside edits advance together; an edit maps its start and end to the target
    interval's start and end.

    Args:
        num_src: number of source tokens T.
        edits: sorted by o_start.

    Returns:
        a map defined on 0..T (T + 1 positions).
    """
    mapping: dict[int, int] = {}
    s = t = 0
    for o0, o1, c0, c1 in edits:
        mapping[o0], mapping[o1] = c0, c1
        while s < o0:
            mapping[s] = t
            s += 1
            t += 1
        s, t = o1, c1
    while s <= num_src:
        mapping[s] = t
        s += 1
        t += 1
    return mapping


def gold_spans(edits: Sequence) -> list[Span]:
    """(o_start, o_end, c_start, c_end) of M2 edits (CLEME's ``M2DataReader.build_target``).

    The target span follows from applying the edits in file order with a running offset (as
    :func:`gec_meta.data.m2.apply_edits` builds the text): an edit's correction (its first
    alternative) starts at ``o_start + offset``.  Noops are dropped.

    Args:
        edits: :class:`~gec_meta.data.m2.GoldEdit` s of one sentence, shape (E,).

    Returns:
        shape (E',), in file order.
    """
    out: list[Span] = []
    offset = 0
    for e in edits:
        if e.is_noop:
            continue
        n = len(e.corrections[0].split())
        out.append((e.start, e.end, e.start + offset, e.start + offset + n))
        offset += n - (e.end - e.start)
    return out


def cleme_kept(texts: Sequence[str]) -> list[int]:
    """The texts CLEME v1.0's ``chunk_partition`` keeps of [hypothesis, reference 1, ...].

    Its "Ignore empty reference" loop deletes an empty text while more than two remain, from
    the list it is iterating over: the text after a deleted one is never examined, and an empty
    hypothesis is deleted too (the first kept text is then scored as the hypothesis).

    Args:
        texts: shape (1 + R,).

    Returns:
        indices into ``texts``, increasing; at least two when there are.
    """
    kept = list(range(len(texts)))
    i = 0
    while i < len(kept):
        if not texts[kept[i]].strip() and len(kept) > 2:
            del kept[i]
        i += 1
    return kept


def merged_intervals(edit_lists: Sequence[Sequence[Span]]) -> list[tuple[int, int]]:
    """Source intervals of all corrections' edits, merged when they overlap or touch."""
    merged: list[list[int]] = []
    for o0, o1, _, _ in sorted((e for edits in edit_lists for e in edits), key=lambda e: e[0]):
        if merged and o0 <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], o1)
        else:
            merged.append([o0, o1])
    return [(a, b) for a, b in merged]


def chunk_intervals(num_src: int, merged: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The chunk cut of the source: unchanged stretches, corrected and dummy intervals."""
    out: list[tuple[int, int]] = []
    pos = 0
    for a, b in merged:
        if pos < a:
            out.append((pos, a))
        out.append((a, b))
        pos = max(pos, b)
    if pos < num_src:
        out.append((pos, num_src))
    return out


@dataclass(frozen=True)
class ChunkText:
    """One correction's chunk: its text (target tokens) and whether it edits the source."""

    tokens: tuple[str, ...]
    edited: bool
    src_len: int

    @property
    def length(self) -> int:
        """CLEME's chunk length: max(|source tokens|, |target tokens|)."""
        return max(self.src_len, len(self.tokens))


def partition(
    source: str, corrections: Sequence[tuple[str, Sequence[Span]]]
) -> list[list[ChunkText]]:
    """Chunk sequences of several corrections of one source (Ye et al. 2023, §3.1).

    Args:
        source: tokenised source.
        corrections: (tokenised target, its edits) for every correction, shape (C,).

    Returns:
        shape (C, K): K chunks per correction, the same cut for all.
    """
    src = source.split()
    edit_lists = [sorted(edits, key=lambda e: e[0]) for _, edits in corrections]
    merged = merged_intervals(edit_lists)
    cut = chunk_intervals(len(src), merged)
    out = []
    for (target, _), edits in zip(corrections, edit_lists):
        tgt = target.split()
        mapping = token_map(len(src), edits)
        edited_intervals: set[tuple[int, int]] = set()
        for o0, o1, _, _ in edits:
            for a, b in merged:
                if a <= o0 and o1 <= b:
                    edited_intervals.add((a, b))
                    break
        chunks = []
        for a, b in cut:
            if (a, b) in edited_intervals:
                t0 = 0 if a == 0 else mapping[a - 1] + 1
                t1 = mapping[b]
            else:
                t0 = mapping[a]
                t1 = 0 if b == 0 else mapping[b - 1] + 1
            chunks.append(ChunkText(tuple(tgt[t0:t1]), (a, b) in edited_intervals, b - a))
        out.append(chunks)
    return out


@dataclass(frozen=True)
class LengthWeight:
    """CLEME's sigmoid length weight (Ye et al. 2023, Eq. 4-5).

    Fields:
        alpha: scale factor; min_value / max_value: clip range; reverse: longer -> lighter.
    """

    alpha: float
    min_value: float
    max_value: float
    reverse: bool = False

    def __call__(self, length: int, bias: float) -> float:
        x = (length - bias) if self.reverse else -(length - bias)
        # exp overflows past x ~ 709.78 (a chunk ~710 tokens longer than the bias, reversed):
        # the official np.exp gives inf there, a weight of 0 clipped to min_value
        if x > _EXP_MAX:  # alpha 1 weighs every length 1 (the official 0 * inf gives NaN there)
            w = 0.0 if self.alpha > 1 else 1.0
        else:
            w = self.alpha / (1.0 + (self.alpha - 1.0) * math.exp(x))
        return float(min(max(w, self.min_value), self.max_value))


#: The largest x with a finite ``math.exp(x)`` (log of the largest float64).
_EXP_MAX = math.log(np.finfo(np.float64).max)


def _system_counts(context, ss: list[int]) -> list[np.ndarray]:
    """:func:`~gec_meta.parallel.parallel_map` task: :meth:`CLEME._system_counts` of systems ``ss``."""
    metric, sources, hypotheses, references, hyp_edits, ref_edits, slots = context
    return [metric._system_counts(sources, hypotheses[s], references, hyp_edits[s], ref_edits, slots) for s in ss]


@dataclass(frozen=True)
class CLEME(PRFMetric):
    """CLEME-dependent / CLEME-independent (Ye et al. 2023) on the edit core's stage 2.

    Fields (defaults: UOT-ERRANT paper settings, see the module docstring):
        beta: 0.5.
        mode: ``dependent`` or ``independent``.
        level: ``sentence`` (corpus score = mean sentence F, SentCLEME; UOT-ERRANT) or
            ``corpus`` (accumulated weighted counts).
        tp_alpha, tp_min, tp_max: TP weight (10, 2.5, 10).
        fp_alpha, fp_min, fp_max: FP weight, reversed (10, 0.25, 1.0).
        fn_alpha, fn_min, fn_max: FN weight (2, 0.75, 1.25).
        reference_edits: ``extract`` (ERRANT edits of the reference texts) or ``gold`` (the
            reference set's M2 gold edits as they are, as CLEME's own scripts read them); in
            the signature only when ``gold``, so existing signatures stay as they were.
        empty_hypothesis: ``score`` (an empty hypothesis is scored; empty references are
            ignored when there are at least two) or ``cleme`` (CLEME v1.0's loop exactly,
            :func:`cleme_kept`: with at least two references an empty hypothesis is dropped and
            the first kept reference is scored in its place; reproduces CLEME's output for
            CoNLL-2014 POST, whose sentence 24 is empty).  In the signature only when ``cleme``.

    Hypotheses read from an M2 file are scored with their own edits (see the module docstring).

    Statistics: shape (S, N, R, 4), last axis (tp, fp, fn, tn).
    """

    mode: str = "independent"
    # CLEME's signature has always named its level (unlike M2's / ERRANT's, whose level is in
    # their name): same field as PRFMetric's, shown, and sentence level by default.
    level: str = field(default="sentence", kw_only=True)
    tp_alpha: float = 10.0
    tp_min: float = 2.5
    tp_max: float = 10.0
    fp_alpha: float = 10.0
    fp_min: float = 0.25
    fp_max: float = 1.0
    fn_alpha: float = 2.0
    fn_min: float = 0.75
    fn_max: float = 1.25
    reference_edits: str = "extract"
    empty_hypothesis: str = "score"

    corpus_name: ClassVar[str] = "cleme"
    accepts_hypothesis_edits: ClassVar[bool] = True
    version: ClassVar[str] = "1"
    stat_names: ClassVar[tuple[str, ...]] = ("tp", "fp", "fn", "tn")

    def __post_init__(self):
        super().__post_init__()
        if self.mode not in ("dependent", "independent"):
            raise ConfigError(f"metric.mode must be 'dependent' or 'independent', got {self.mode!r}")
        for k in ("tp_alpha", "fp_alpha", "fn_alpha"):
            if getattr(self, k) < 1:
                raise ConfigError(f"metric.{k} must be >= 1, got {getattr(self, k)!r}")
        reference_kind_for(self.reference_edits)  # checks the value
        if self.empty_hypothesis not in ("score", "cleme"):
            raise ConfigError(
                f"metric.empty_hypothesis must be 'score' or 'cleme', got {self.empty_hypothesis!r}"
            )

    @property
    def reference_kind(self) -> str:
        return reference_kind_for(self.reference_edits)

    def options(self) -> dict[str, object]:
        # Shown only when not the default, so the signatures of existing results stay as they were.
        opts = super().options()
        for key, default in (("reference_edits", "extract"), ("empty_hypothesis", "score")):
            if opts[key] == default:
                del opts[key]
        return opts

    @property
    def weights(self) -> tuple[LengthWeight, LengthWeight, LengthWeight]:
        return (LengthWeight(self.tp_alpha, self.tp_min, self.tp_max),
                LengthWeight(self.fp_alpha, self.fp_min, self.fp_max, reverse=True),
                LengthWeight(self.fn_alpha, self.fn_min, self.fn_max))

    # ----------------------------------------------------------------- stage 1
    def _spans(self, sources: Sequence[str], texts: Sequence[Sequence[str]]) -> list[list[list[Span]]]:
        """(o_start, o_end, c_start, c_end) of the edits of every text, shape (T, N, E): the
        edits a row carries, else ERRANT's (:func:`~gec_meta.metrics.edit.errant.given_or_extracted`)."""
        edits, given = given_or_extracted(sources, texts, self.threads, language=self._language)
        return [[gold_spans(e) for e in row] if g
                else [[(e.start, e.end, e.c_start, e.c_end) for e in sent] for sent in row]
                for row, g in zip(edits, given)]

    def _references(self, sources: Sequence[str], references) -> tuple[list[list[str]], list[list[list[Span]]]]:
        """Reference texts, shape (R, N), and their edit spans, shape (R, N, E)."""
        if self.reference_edits == "gold":
            texts = [[apply_gold_edits(sources[n], ref[n]) for n in range(len(sources))] for ref in references]
            return texts, [[gold_spans(ref[n]) for n in range(len(sources))] for ref in references]
        return [list(ref) for ref in references], self._spans(sources, references)

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        """Length-weighted (tp, fp, fn, tn) of every (system, sentence, reference), shape
        (S, N, R, 4) (arguments as :meth:`Metric.statistics`; references are gold-edit tuples
        with ``reference_edits: gold``)."""
        N, S, R = len(sources), len(hypotheses), len(references)
        # Stand-ins for annotators absent from a sentence (a user's M2 under missing_annotator=skip)
        # take no part in the sentence's chunks, counts or the length bias; their rows repeat the
        # first kept reference's, as an ignored empty reference's do.
        present = present_mask(references)
        slots = [[r for r in range(R) if present is None or present[r][n]] or [0] for n in range(N)]
        references, ref_edits = self._references(sources, references)
        hyp_edits = self._spans(sources, hypotheses)
        # One system per task: the length bias is a mean over all of a system's sentences.
        work = [sum(len(h) + 1 for h in hyp) for hyp in hypotheses]
        rows = parallel_map(_system_counts, S, (self, sources, hypotheses, references, hyp_edits, ref_edits, slots),
                            threads=self.threads, work=work, min_work=MIN_PARALLEL_WORK,
                            desc="CLEME chunks", unit="system")
        return np.stack(rows) if rows else np.zeros((S, N, R, len(self.stat_names)), dtype=np.float64)

    def _system_counts(self, sources, hypothesis, references, hyp_edits, ref_edits, slots) -> np.ndarray:
        """Statistics of one system, shape (N, R, K) (:meth:`chunk_counts`).

        Args:
            hypothesis: the system's sentences, shape (N,); hyp_edits: their spans (N, E).
            references: reference texts (R, N); ref_edits: their spans (R, N, E).
            slots: per sentence, the annotators present in it, shape (N, R_n).
        """
        parts, kept = [], []
        for n in range(len(sources)):
            pool = [(hypothesis[n], hyp_edits[n])]
            pool += [(references[r][n], ref_edits[r][n]) for r in slots[n]]
            if self.empty_hypothesis == "cleme":
                first, *rest = cleme_kept([text for text, _ in pool])
                refs = [slots[n][k - 1] for k in rest]
            else:
                first = 0
                refs = [r for r in slots[n] if references[r][n].strip() or len(slots[n]) < 2] or slots[n][:1]
            corrections = [pool[first]] + [pool[slots[n].index(r) + 1] for r in refs]
            parts.append(partition(sources[n], corrections))
            kept.append(refs)
        return self.chunk_counts(sources, references, parts, kept)

    def chunk_counts(self, sources: Sequence[str], references: Sequence[Sequence[str]],
                     parts: list[list[list[ChunkText]]], kept: list[list[int]]) -> np.ndarray:
        """The scoring hook: statistics of one system's chunks, shape (N, R, K).

        Args:
            sources: shape (N,).
            references: reference texts, shape (R, N).
            parts: per sentence, the chunks of the hypothesis then of the kept references
                (:func:`partition`), shape (N, 1 + R_n, C_n).
            kept: per sentence, the indices of the kept references, shape (N, R_n).

        Here: length-weighted (tp, fp, fn, tn) with the bias c of the whole system (the
        module docstring); CLEME2.0 (:mod:`gec_meta.metrics.edit.cleme2`) counts other classes.
        """
        R = len(references)
        lengths = [c.length for p in parts for ref in p[1:] for c in ref if c.edited]
        bias = float(np.mean(lengths)) if lengths else 0.0
        return np.stack([self._sentence_counts(p, k, R, bias) for p, k in zip(parts, kept)])

    def _sentence_counts(self, chunks: list[list[ChunkText]], refs: list[int], R: int, bias: float) -> np.ndarray:
        """(R, 4) counts of one sentence; ``chunks[0]`` is the hypothesis, then ``refs``."""
        w_tp, w_fp, w_fn = self.weights
        hyp, ref_chunks = chunks[0], chunks[1:]
        out = np.zeros((R, 4))
        if self.mode == "dependent":
            rows = []
            for rc in ref_chunks:
                c = np.zeros(4)
                for h, g in zip(hyp, rc):
                    if h.edited:
                        if h.tokens == g.tokens:
                            c[0] += w_tp(h.length, bias)
                        else:
                            c[1] += w_fp(h.length, bias)
                    elif h.tokens != g.tokens:
                        c[2] += w_fn(h.length, bias)
                    else:
                        c[3] += 1.0
                rows.append(c)
            for r in range(R):  # an ignored (empty) reference repeats the first kept one
                out[r] = rows[refs.index(r)] if r in refs else rows[0]
            return out
        c = np.zeros(4)
        for k, h in enumerate(hyp):
            cands = [rc[k] for rc in ref_chunks]
            if h.edited:
                if any(h.tokens == g.tokens for g in cands):
                    c[0] += w_tp(h.length, bias)
                else:
                    c[1] += w_fp(h.length, bias)
            elif all(g.edited for g in cands):
                c[2] += w_fn(h.length, bias)
            else:
                c[3] += 1.0
        out[:] = c
        return out

    # ----------------------------------------------------------------- stage 2
    def prfa(self, stats: np.ndarray):
        """Rounded (P, R, F_beta, accuracy) of statistics of shape (..., 4), each of shape (...)
        (CLEME's ``compute_f`` and ``compute_acc``: 4 decimals)."""
        p, r, f = f_beta(stats[..., 0], stats[..., 1], stats[..., 2], self.beta)
        total = stats.sum(axis=-1)
        acc = np.where(total != 0, (stats[..., 0] + stats[..., 3]) / np.where(total == 0, 1, total), 0.0)
        return python_round4(p), python_round4(r), python_round4(f), python_round4(acc)

    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        """F_beta rounded to 4 decimals (CLEME's ``compute_f``), shape (...)."""
        return self.prfa(stats)[2]

    def running_best(self, cand: np.ndarray, own: np.ndarray) -> np.ndarray:
        """The corpus scorer's choice (``level: corpus``; CLEME's ``CorpusScorer``, v1.0 and
        v1.1's ``score_corpus``): the largest F_beta of the running totals plus the reference's
        counts *rounded to 4 decimals* (its ``compute_f`` returns ``round(f, 4)``), then the
        sentence's own TP, -FP, -FN, TN; the first on a full tie.

        Args:
            cand: shape (S, R, 4), the running totals plus each reference's counts.
            own: shape (S, R, 4), each reference's counts of this sentence alone.

        Returns:
            int array of shape (S,).
        """
        f = self.score_from_stats(cand)  # rounded to 4 decimals, as compute_f
        return lexicographic_best((f, own[..., 0], -own[..., 1], -own[..., 2], own[..., 3]))

    def best_reference(self, stats: np.ndarray) -> np.ndarray:
        """Per sentence: highest F, then P, then R, then the lower accuracy; first on a tie.

        Args:
            stats: shape (S, N, R, 4).

        Returns:
            shape (S, N).
        """
        p, r, f, acc = self.prfa(stats)
        # lexsort: last key is primary; negate to get "largest first", index breaks ties.
        S, N, R = f.shape
        best = np.zeros((S, N), dtype=np.int64)
        if R == 1:
            return best
        for s, n in np.ndindex(S, N):
            best[s, n] = max(range(R), key=lambda j: (f[s, n, j], p[s, n, j], r[s, n, j], -acc[s, n, j], -j))
        return best
