"""GoToScorer (Gotou, Nagata, Mita & Hanawa, COLING 2020, "Taking the Correction Difficulty
into Account in Grammatical Error Correction Evaluation").

The source is cut into *chunks*: every ERRANT edit of a correction is one chunk, every source
token outside the edits is one chunk, and an empty *slot* chunk ``(k, k)`` stands between
tokens wherever no insertion edit already sits, so that insertions have a place to land
(Gotou et al. 2020, §3.1).  The reference and each hypothesis are chunked against the same
source; every *reference* chunk is then judged *tried* and/or *correct* against the
hypothesis chunks with the rules of the authors' tool (gotutiyan/GTS ``gotoscorer.py`` of
the paper's time, commits 04e1e20 / 5fa8d08, where ``evaluation_systems`` and ``cluc_weight``
live; see :func:`evaluate_chunk` -- mostly "same span and string = correct, tried iff an
overlapping hypothesis chunk is an edit", with two boundary rules of that tool; equal to it,
weighted and unweighted, on every SEEDA system, review of session 23).

tried & correct -> TP; tried & incorrect -> FP (and also FN when the reference chunk is an
edit); untried & correct -> TN; untried & incorrect -> FN.  Each outcome adds the chunk's
*weight*.  (gec-metrics 0.1.1 / 0.1.2 ``GoToScorer`` uses a simpler same-span rule and, in its
weight generator, compares a reference chunk's span with itself, so it differs from GTS.)

**Correction difficulty** (Gotou et al. 2020, §3.2): the weight of a reference chunk is
``1 - (systems that got it correct) / (number of systems)``, "correct" as above (GTS
``cluc_weight``).  The weights are
computed from the *systems being evaluated*, so the statistics of one system depend on all of
them.  :meth:`GoToScorer.bind` fixes the system set (its outputs' hash enters
:meth:`GoToScorer.cache_key`); an unbound metric binds itself to whatever systems its
:meth:`statistics` receives and never shares cached statistics with another run.

Scores: F_beta (beta = 0.5, Gotou et al. 2020 §4) of the weighted TP/FP/FN; TN is kept as a
fourth statistic (the paper's weighted accuracy uses it).  The corpus score follows GTS when
TP, FP and FN are all 0 (F 0: :meth:`GoToScorer.corpus_prf`); ``level=sentence`` (not GTS's:
the mean sentence F, each sentence with errant_compare's conventions) is named in the
signature.  Only one reference is used by default (``ref_id = 0``, as gec-metrics'
``GoToScorer``); ``ref_id = -1`` scores every reference and lets the usual best-reference rule
choose.

Statistics: shape (S, N, R, 4), last axis (tp, fp, fn, tn).
"""

from __future__ import annotations

import dataclasses
import uuid
import warnings
from dataclasses import dataclass, field
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.cache import text_hash
from gec_meta.edits.edit_sets import errant_edit_sets
from gec_meta.errors import ConfigError, InputWarning
from gec_meta.metrics.edit.core import PRFMetric
from gec_meta.parallel import parallel_map

#: Work (source characters x corrections, summed over sentences) from which GoToScorer's
#: chunking and judging start worker processes: ~0.2 s of it in one process (6-8e-7 CPU s per
#: unit on GJG15 slices, AMD EPYC); a 2-worker pool costs ~30 ms of CPU to start and stop.
MIN_PARALLEL_WORK = 300_000


@dataclass(frozen=True)
class Chunk:
    """A source span [start, end) and what a correction puts there.

    ``edited`` is False for unchanged tokens and empty slots.
    """

    start: int
    end: int
    text: str
    edited: bool


def chunk_sequence(tokens: Sequence[str], edits: Sequence[tuple[int, int, str]]) -> tuple[Chunk, ...]:
    """Chunks of a correction (Gotou et al. 2020, §3.1).

    Args:
        tokens: the source tokens, shape (T,).
        edits: (o_start, o_end, c_str) of the correction's edits, shape (E,).

    Returns:
        the chunk sequence: edits, unchanged tokens, and a slot ``(k, k, "")`` before every
        non-insertion chunk that does not follow an insertion, plus one at the end (unless the
        last chunk is an insertion).
    """
    by_start: dict[int, list[tuple[int, int, str]]] = {}
    for e in sorted(edits, key=lambda e: (e[0], e[1])):
        by_start.setdefault(e[0], []).append(e)
    body: list[Chunk] = []
    pos = 0
    while pos <= len(tokens):
        jump = None
        for s, e, c in by_start.get(pos, ()):
            body.append(Chunk(s, e, c, True))
            if e > s:
                jump = e
        if jump is not None:
            pos = jump
        elif pos < len(tokens):
            body.append(Chunk(pos, pos + 1, tokens[pos], False))
            pos += 1
        else:
            break
    out: list[Chunk] = []
    after_insertion = False
    for ch in body:
        if ch.start == ch.end:
            out.append(ch)
            after_insertion = True
            continue
        if not after_insertion:
            out.append(Chunk(ch.start, ch.start, "", False))
        out.append(ch)
        after_insertion = False
    if not after_insertion:
        end = body[-1].end if body else 0
        out.append(Chunk(end, end, "", False))
    return tuple(out)


# Outcome codes of one reference chunk.  NONE: the chunk adds to no count (the paper-era GTS
# skips the (error, untried, correct) and (no error, tried, correct) combinations, which ERRANT
# chunks cannot produce but hand-made references can; GTS v1.1.0 counts them as TP and TN).
TP, FP, FP_FN, TN, FN, NONE = range(6)


def evaluate_chunk(ref_chunk: Chunk, hyp_index: dict[tuple[int, int], tuple[Chunk, ...]],
                   hyp_edits: Sequence[Chunk]) -> tuple[bool, bool]:
    """(tried, correct) of one reference chunk against a hypothesis, as the authors' tool
    (gotutiyan/GTS ``gotoscorer.py``, ``evaluation_systems``) decides them.

    GTS walks the hypothesis chunks in order: a chunk with the same span and string is
    *equal* (correct; tried iff it is an edit) and overrides what came before; a chunk that
    has the same span but another string, or overlaps the reference chunk, *covers* it
    (incorrect; tried iff it is an edit) unless an earlier covering chunk was already an
    edit.  A reference *insertion* chunk ``(k, k)`` is judged only by hypothesis chunks of
    the same span; with none, it is correct iff it is not an edit.  Consequences that a
    simpler same-span rule misses: a hypothesis insertion at ``a`` *tries* the reference
    chunk ``(a, b)`` (so an unchanged token next to an inserted word counts as FP + FN when
    the reference edits that token), and a reference insertion inside a hypothesis
    multi-token edit is an untried miss (FN), not a true negative.  ERRANT can propose two
    insertions at one position (e.g. ``,`` and ``who``): then the reference insertion is
    correct if either matches.

    Args:
        hyp_index: the hypothesis chunks by (start, end), in sequence order.
        hyp_edits: the hypothesis chunks that are edits.
    """
    a, b = ref_chunk.start, ref_chunk.end
    same = hyp_index.get((a, b), ())
    if a == b:
        if not same:
            return False, not ref_chunk.edited
        state = None  # GTS's walk over the same-span chunks
        for h in same:
            if h.text == ref_chunk.text:
                state = (h.edited, True)
            elif not (state and state[0]):
                state = (h.edited, False)
        return state
    for h in same:
        if h.text == ref_chunk.text:
            return h.edited, True
    tried = any((a <= e.start < b) or (e.start <= a < e.end) for e in hyp_edits)
    return tried, False


def judge(ref_chunk: Chunk, hyp_index: dict[tuple[int, int], tuple[Chunk, ...]],
          hyp_edits: Sequence[Chunk]) -> int:
    """Outcome code of one reference chunk (GTS ``update_score``): from (error, tried, correct)
    (1,1,1) TP, (1,1,0) FP + FN, (1,0,0) FN, (0,0,1) TN, (0,1,0) FP, otherwise NONE.

    Args:
        hyp_index: the hypothesis chunks by (start, end), in sequence order.
        hyp_edits: the hypothesis chunks that are edits.
    """
    tried, correct = evaluate_chunk(ref_chunk, hyp_index, hyp_edits)
    if ref_chunk.edited:
        return (TP if correct else FP_FN) if tried else (NONE if correct else FN)
    return (NONE if correct else FP) if tried else (TN if correct else NONE)


def chunk_index(chunks: Sequence[Chunk]) -> tuple[dict[tuple[int, int], tuple[Chunk, ...]], list[Chunk]]:
    """(chunks by span, in sequence order; the chunks that are edits) of one hypothesis."""
    index: dict[tuple[int, int], tuple[Chunk, ...]] = {}
    for c in chunks:
        index[(c.start, c.end)] = index.get((c.start, c.end), ()) + (c,)
    return index, [c for c in chunks if c.edited]


def _counts(outcomes: Sequence[int], weights: Sequence[float]) -> tuple[float, float, float, float]:
    tp = fp = fn = tn = 0.0
    for o, w in zip(outcomes, weights):
        if o == TP:
            tp += w
        elif o == FP:
            fp += w
        elif o == FP_FN:
            fp += w
            fn += w
        elif o == TN:
            tn += w
        elif o == FN:
            fn += w
    return tp, fp, fn, tn


def difficulty_weights(ref_chunks: Sequence[Chunk], system_chunks: Sequence[Sequence[Chunk]]) -> tuple[float, ...]:
    """Weight of every reference chunk: 1 - fraction of the systems that got it *correct*
    (:func:`evaluate_chunk`; GTS ``cluc_weight``) (Gotou et al. 2020, §3.2).

    Args:
        ref_chunks: shape (C,).
        system_chunks: the chunk sequences of every system for the same sentence, shape (S,).

    Returns:
        shape (C,).
    """
    if not system_chunks:
        return tuple(1.0 for _ in ref_chunks)
    indexed = [chunk_index(chunks) for chunks in system_chunks]
    n = len(indexed)
    return tuple(1.0 - sum(evaluate_chunk(c, idx, edits)[1] for idx, edits in indexed) / n for c in ref_chunks)


@dataclass(frozen=True)
class GoToScorer(PRFMetric):
    """GoToScorer (Gotou et al. 2020): chunk-level weighted TP/FP/FN/TN and F_beta.

    Fields:
        beta: 0.5 (Gotou et al. 2020 report F0.5).
        weighted: True = correction-difficulty weights; False = every chunk weighs 1
            (``gotoscorer_unweighted``).
        ref_id: the one reference scored (0, as gec-metrics); -1 = every reference.
        system_set: hash of the outputs of the systems the weights come from ("" = unbound);
            set by :meth:`bind`.

    Statistics: shape (S, N, R, 4), last axis (tp, fp, fn, tn).
    """

    weighted: bool = True
    ref_id: int = 0
    system_set: str = ""
    _weights: dict | None = field(default=None, repr=False, compare=False)
    _nonce: str = field(default_factory=lambda: uuid.uuid4().hex, repr=False, compare=False)

    corpus_name: ClassVar[str] = "gotoscorer"
    version: ClassVar[str] = "3"  # 2: GTS boundary rules; 3: several hypothesis chunks per span
    stat_names: ClassVar[tuple[str, ...]] = ("tp", "fp", "fn", "tn")

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.ref_id, int) or self.ref_id < -1:
            raise ConfigError(f"metric.ref_id must be an int >= -1 (-1 = all references), got {self.ref_id!r}")

    # ----------------------------------------------------------------- identity
    def stats_options(self) -> dict[str, object]:
        opts = {"weighted": self.weighted, "ref_id": self.ref_id}
        if self.weighted:
            # Unbound: the weights come from whichever systems statistics() receives, so the
            # statistics must never be shared with another run (fresh nonce per instance).
            opts["system_set"] = self.system_set or f"unbound-{self._nonce}"
        return opts

    # ----------------------------------------------------------------- scores
    def corpus_prf(self, stats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """As :meth:`PRFMetric.corpus_prf`; at ``level=corpus`` with GTS's conventions
        (``Score.get_PRFA``): P = 0 without TP + FP, R = 0 without TP + FN, so a system whose
        weighted TP, FP and FN are all 0 (every chunk it got right weighs 0: a perfect system
        evaluated alone) scores F 0, not errant_compare's (and gec-metrics') 1.  Shapes (S,)."""
        if self.level != "corpus":
            return super().corpus_prf(stats)  # sentence level is not GTS's: the usual conventions
        counts = self.corpus_stats(stats)
        p, r, f = self.prf(counts)
        tp, fp, fn = counts[..., 0], counts[..., 1], counts[..., 2]
        p = np.where(tp + fp == 0, 0.0, p)
        r = np.where(tp + fn == 0, 0.0, r)
        return p, r, np.where((tp + fp == 0) | (tp + fn == 0), 0.0, f)

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        return self.corpus_prf(stats)[2] if self.level == "corpus" else super().corpus_scores(stats)

    # ----------------------------------------------------------------- chunks
    def _edit_keys(self, sources: Sequence[str], texts: Sequence[Sequence[str]]) -> list[list[list[tuple]]]:
        """(o_start, o_end, c_str) of the ERRANT edits of every text of every correction set,
        shape (T, N, E)."""
        edit_sets = errant_edit_sets(sources, texts, self.threads, language=self._language)
        return [[[e.key for e in edits[n]] for n in range(len(sources))] for edits in edit_sets]

    def _ref_ids(self, num_refs: int) -> list[int]:
        if self.ref_id == -1:
            return list(range(num_refs))
        if self.ref_id >= num_refs:
            raise ConfigError(f"metric.ref_id={self.ref_id} but the reference set has {num_refs} references")
        return [self.ref_id]

    def _per_sentence(self, task, sources, ref_keys, hyp_keys, extra=None) -> list:
        """``task`` (a :func:`~gec_meta.parallel.parallel_map` task) over every sentence, with
        the edits of the scored references (shape (R', N, E)) and hypotheses (shape (S, N, E))."""
        N = len(sources)
        work = [(len(sources[n]) + 1) * (len(ref_keys) + len(hyp_keys)) for n in range(N)]
        return parallel_map(task, N, (sources, ref_keys, hyp_keys, extra), threads=self.threads, work=work,
                            min_work=MIN_PARALLEL_WORK, desc="GoToScorer chunks", unit="sentence")

    depends_on_system_set: ClassVar[bool] = True

    def bind(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]],
             references: Sequence[Sequence[str]], systems=None) -> "GoToScorer":
        """This metric with its difficulty weights computed from ``hypotheses``.

        Args:
            sources: shape (N,).
            hypotheses: every system of the evaluation, shape (S, N).
            references: shape (R, N).

        Returns:
            a copy whose ``system_set`` is the hash of all systems' outputs (so cached
            statistics are only reused for the same system set) and that holds the weights.
        """
        if not self.weighted:
            return self
        if len(hypotheses) < 2:
            warnings.warn(f"gotoscorer: difficulty weights from {len(hypotheses)} system: every chunk it gets "
                          "right weighs 0, so its weighted F is 0 (Gotou et al. 2020 weigh by the systems "
                          "compared; metric=gotoscorer_unweighted scores one system alone)", InputWarning,
                          stacklevel=2)
        ids = self._ref_ids(len(references))
        ref_keys = self._edit_keys(sources, [references[r] for r in ids])
        hyp_keys = self._edit_keys(sources, hypotheses)
        rows = self._per_sentence(_sentence_weights, sources, ref_keys, hyp_keys)
        weights = {(r, n): rows[n][k] for k, r in enumerate(ids) for n in range(len(sources))}
        digest = text_hash(*sources, *(text_hash(*h) for h in sorted(hypotheses)))[:20]
        return dataclasses.replace(self, system_set=f"{len(hypotheses)}sys-{digest}", _weights=weights)

    # ----------------------------------------------------------------- stage 1
    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        """Weighted (tp, fp, fn, tn) of every (system, sentence, reference), shape (S, N, R, 4)
        (arguments as :meth:`Metric.statistics`).  With a single ``ref_id`` the scored
        reference's statistics are repeated on the R axis (the best-reference rule then picks
        it)."""
        metric = self
        if self.weighted and self._weights is None:
            metric = self.bind(sources, hypotheses, references)
        N, R, S = len(sources), len(references), len(hypotheses)
        ids = metric._ref_ids(R)
        ref_keys = metric._edit_keys(sources, [references[r] for r in ids])
        hyp_keys = metric._edit_keys(sources, hypotheses)
        weights = None
        if metric.weighted:
            weights = (ids, [[metric._weights[(r, n)] for r in ids] for n in range(N)])
        rows = metric._per_sentence(_sentence_counts, sources, ref_keys, hyp_keys, weights)
        out = np.zeros((S, N, R, 4), dtype=np.float64)
        for n, counts in enumerate(rows):  # counts: (S, R', 4)
            out[:, n, ids] = counts
            if len(ids) == 1:
                out[:, n] = out[:, n, ids[0]][:, None]
        return out


def _sentence_weights(context, ns: list[int]) -> list[list[tuple[float, ...]]]:
    """:func:`~gec_meta.parallel.parallel_map` task of :meth:`GoToScorer.bind`: the difficulty
    weights of every scored reference's chunks of sentences ``ns``, shape (len(ns), R', C)."""
    sources, ref_keys, hyp_keys, _ = context
    out = []
    for n in ns:
        tokens = sources[n].split()
        hyp_chunks = [chunk_sequence(tokens, keys[n]) for keys in hyp_keys]
        out.append([difficulty_weights(chunk_sequence(tokens, keys[n]), hyp_chunks) for keys in ref_keys])
    return out


def _sentence_counts(context, ns: list[int]) -> list[np.ndarray]:
    """:func:`~gec_meta.parallel.parallel_map` task of :meth:`GoToScorer.statistics`: the
    weighted (tp, fp, fn, tn) of sentences ``ns``, each of shape (S, R', 4)."""
    sources, ref_keys, hyp_keys, weights = context
    out = []
    for n in ns:
        tokens = sources[n].split()
        ref_chunks = [chunk_sequence(tokens, keys[n]) for keys in ref_keys]
        counts = np.zeros((len(hyp_keys), len(ref_keys), 4))
        for s, keys in enumerate(hyp_keys):
            index, edits = chunk_index(chunk_sequence(tokens, keys[n]))
            for k, rc in enumerate(ref_chunks):
                w = (1.0,) * len(rc) if weights is None else weights[1][n][k]
                if len(w) != len(rc):
                    raise ValueError(
                        f"GoToScorer weights for sentence #{n} reference #{weights[0][k]} have {len(w)} "
                        f"entries for {len(rc)} chunks: bind() was called on other references"
                    )
                counts[s, k] = _counts([judge(c, index, edits) for c in rc], w)
        out.append(counts)
    return out


@dataclass(frozen=True)
class GoToScorerUnweighted(GoToScorer):
    """GoToScorer with every chunk weighing 1 (Gotou et al. 2020's unweighted baseline)."""

    weighted: bool = False
    corpus_name: ClassVar[str] = "gotoscorer_unweighted"
