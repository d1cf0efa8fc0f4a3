"""BERTScore (Zhang et al. 2020) as a metric and as a PT-M2 edit scorer.

Per (candidate, reference) pair, with L2-normalised token states x_i (candidate) and y_j
(reference) of one encoder layer (:class:`gec_meta.encoders.Encoder`):

    P = sum_i w(x_i) max_j x_i . y_j / sum_i w(x_i)      (greedy matching, Zhang et al. 2020 Eq. 1-2)
    R = sum_j w(y_j) max_i x_i . y_j / sum_j w(y_j)
    F = 2 P R / (P + R)

Conventions of the ``bert_score`` package (0.3.13), which the published numbers used:

* Special tokens ([CLS]/[SEP], <s>/</s>) get weight w = 0, so they are never averaged, but
  they stay *match targets* of the other side's max (bert_score masks only padding there).
* w = 1 without idf; with idf, w(t) = log((M + 1) / (df(t) + 1)) over the M reference
  sentences of the run (unseen tokens log(M + 1)), as ``bert_score.utils.get_idf_dict``.
* Baseline rescaling x' = (x - b) / (1 - b) per component (bert_score's "rescale_with_baseline";
  for bert-base-uncased layer 9: b = P 0.35375935, R 0.3537393, F 0.35219112).
* **Empty texts** (no token besides the special ones): if exactly one text is empty,
  P = R = F = 0 before rescaling, bert_score's value for an empty candidate or reference.  If
  *both* are empty, ``empty_pair`` decides: ``bert_score`` (default) gives 0 as well, what
  bert_score 0.3.13 returns (its F is 0/0 there, replaced by 0) and hence what gec-metrics'
  BERTScore and PT-ERRANT compute; ``identical`` gives P = R = F = 1 (two empty texts are
  identical).  The choice matters for PT weights against an empty reference (an annotator who
  deleted the whole sentence): the edit deleting everything gets |F("", "") - F(S, "")| = 0
  under ``bert_score`` but 1 under ``identical``, ~100x a typical edit weight.  A zero total
  idf weight counts as empty for that side.

Speed: a call embeds each distinct text once (the encoder deduplicates, batches and caches),
then scores every distinct pair with small float64 matrix products: on the CPU in numpy, or,
when the encoder runs on a GPU, there in torch (:mod:`.greedy_device`, equal to ~1e-16).
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from gec_meta.encoders import Encoder, TokenEmbeddings
from gec_meta.encoders.batching import unique
from gec_meta.errors import ConfigError
from gec_meta.metrics.neural.greedy_device import greedy_prf_device
from gec_meta.metrics.neural.pair import PairScoreMetric
from gec_meta.parallel import parallel_map
from gec_meta.stopwatch import timed

COMPONENTS = ("P", "R", "F")
EMPTY_PAIR = {"bert_score": 0.0, "identical": 1.0}  # P = R = F of an (empty, empty) pair


# --------------------------------------------------------------------------- pure functions
def idf_weights(id_sequences: Sequence[Sequence[int]]) -> tuple[dict[int, float], float]:
    """bert_score's idf over M sentences: log((M+1)/(df+1)); unseen tokens log(M+1).

    Args:
        id_sequences: shape (M,), token ids of every idf sentence (the run's references).

    Returns:
        (idf of every seen id, idf of unseen ids).
    """
    M = len(id_sequences)
    df = Counter(t for seq in id_sequences for t in set(seq))
    return {t: math.log((M + 1) / (c + 1)) for t, c in df.items()}, math.log(M + 1)


def greedy_prf(
    x: np.ndarray, wx: np.ndarray, y: np.ndarray, wy: np.ndarray, both_empty: float = 0.0
) -> tuple[float, float, float]:
    """Raw BERTScore of one pair from normalised token vectors.

    Args:
        x: shape (Tx, D), candidate token vectors, L2-normalised (special tokens included).
        wx: shape (Tx,), their weights (0 for special tokens).
        y: shape (Ty, D), reference token vectors, L2-normalised.
        wy: shape (Ty,), their weights.
        both_empty: P = R = F when both sides are empty (0 as bert_score, or 1).

    Returns:
        (P, R, F) floats, see the module docstring for the empty-text rules.
    """
    sx, sy = float(wx.sum()), float(wy.sum())
    if sx == 0.0 and sy == 0.0:
        return both_empty, both_empty, both_empty
    if sx == 0.0 or sy == 0.0:
        return 0.0, 0.0, 0.0
    sim = x @ y.T
    p = float(sim.max(axis=1) @ wx) / sx
    r = float(sim.max(axis=0) @ wy) / sy
    f = 2 * p * r / (p + r) if (p + r) != 0 else 0.0
    return p, r, f


#: Work (candidate tokens x reference tokens, summed) from which the greedy matching starts
#: worker processes: ~0.3 s of matching in one process (4-5e-8 CPU s per unit with 384-dim
#: states, AMD EPYC).  Forking a process that holds torch and a model costs more than forking
#: a plain one: ~75 ms of CPU here for two workers (PT-M2 with MiniLM, 1.1 GB resident), so
#: 0.23 s of matching (GJG15's first 300 sentences) only went to ~0.21 s with two workers.
MIN_PARALLEL_WORK = 6_000_000


def _score_grouped(
    pairs: Sequence[tuple[int, int]], vecs: list[np.ndarray], weights: list[np.ndarray], both_empty: float = 0.0,
    threads: int | None = None,
) -> np.ndarray:
    """Raw (P, R, F) of pairs of text indices, shape (B, 3).

    Pairs sharing a reference are scored with one matrix product: the candidates' token
    vectors are stacked (sum T_x, D) @ (D, T_y), and the maxima are taken per candidate segment
    (same numbers as :func:`greedy_prf`, ~10x fewer BLAS calls).  BLAS runs single-threaded
    here: on tiny matrices threads only add synchronisation (and spin against torch's).  The
    reference groups are spread over ``threads`` processes (:func:`gec_meta.parallel.parallel_map`;
    each group is one product whichever process computes it, so the bits do not depend on
    ``threads``).
    """
    out = np.zeros((len(pairs), 3))
    by_ref: dict[int, list[int]] = {}
    for k, (a, b) in enumerate(pairs):
        by_ref.setdefault(b, []).append(k)
    groups = list(by_ref.items())
    work = [len(vecs[b]) * sum(len(vecs[pairs[k][0]]) for k in ks) for b, ks in groups]
    # blas_threads=1: one BLAS thread in the workers and in this process alike
    rows = parallel_map(_score_groups, len(groups), (pairs, vecs, weights, both_empty, groups),
                        threads=threads, work=work, min_work=MIN_PARALLEL_WORK, blas_threads=1,
                        desc="BERTScore matching", unit="reference")
    for (_, ks), r in zip(groups, rows):
        out[ks] = r
    return out


def _score_groups(context, idx: list[int]) -> list[np.ndarray]:
    """:func:`~gec_meta.parallel.parallel_map` task: (P, R, F) of the pairs of reference groups
    ``idx``, each of shape (pairs of the group, 3)."""
    pairs, vecs, weights, both_empty, groups = context
    return [_score_group(pairs, vecs, weights, both_empty, *groups[g]) for g in idx]


def _score_group(pairs, vecs, weights, both_empty: float, b: int, ks: list[int]) -> np.ndarray:
    """(P, R, F) of the pairs ``ks`` (all with reference ``b``), shape (len(ks), 3)."""
    out = np.zeros((len(ks), 3))
    y, wy = vecs[b], weights[b]
    sy = float(wy.sum())
    normal = [j for j, k in enumerate(ks) if sy != 0.0 and float(weights[pairs[k][0]].sum()) != 0.0]
    if len(normal) < len(ks):  # an empty side: the rules of greedy_prf
        for j in sorted(set(range(len(ks))).difference(normal)):
            a = pairs[ks[j]][0]
            out[j] = greedy_prf(vecs[a], weights[a], y, wy, both_empty)
    if not normal:
        return out
    xs = [vecs[pairs[ks[j]][0]] for j in normal]
    offsets = np.cumsum([0] + [len(x) for x in xs[:-1]])
    sim = np.concatenate(xs) @ y.T  # (sum T_x, T_y)
    row_max = sim.max(axis=1)
    col_max = np.maximum.reduceat(sim, offsets, axis=0)  # (k, T_y)
    for i, j in enumerate(normal):
        wx = weights[pairs[ks[j]][0]]
        p = float(row_max[offsets[i] : offsets[i] + len(wx)] @ wx) / float(wx.sum())
        r = float(col_max[i] @ wy) / sy
        out[j] = (p, r, 2 * p * r / (p + r) if (p + r) != 0 else 0.0)
    return out


def load_baseline(baseline: Any, layer: int) -> np.ndarray | None:
    """Rescaling baseline (b_P, b_R, b_F), shape (3,), or None for no rescaling.

    Args:
        baseline: None; a mapping ``{P: .., R: .., F: ..}``; or the path of a bert_score
            baseline file (CSV with header ``LAYER,P,R,F``, one row per layer).
        layer: the encoder layer whose row is read from a file.
    """
    if baseline is None:
        return None
    if isinstance(baseline, Mapping):
        try:
            return np.array([float(baseline[k]) for k in COMPONENTS])
        except KeyError as exc:
            raise ConfigError(f"scorer.baseline needs keys P, R, F; missing {exc}") from None
    path = Path(str(baseline)).expanduser()
    if not path.is_file():
        raise ConfigError(f"scorer.baseline: file {path} not found (bert_score CSV: LAYER,P,R,F)")
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        if int(float(row["LAYER"])) == layer:
            return np.array([float(row[k]) for k in COMPONENTS])
    raise ConfigError(f"scorer.baseline: {path} has no row for LAYER {layer}")


# --------------------------------------------------------------------------- scorer
@dataclass(eq=False)
class BERTScoreScorer:
    """BERTScore of (candidate, reference) pairs; the pair scorer behind :class:`BERTScore`
    and PT-M2's default edit scorer (Gong et al. 2022 §4.2).

    Fields:
        encoder: the token encoder (config group ``encoder``).
        component: ``F`` (PT-M2 default), ``P`` or ``R``.
        idf: idf weighting from the run's references (the PT-M2 paper's BERTScore metric row,
            footnote 1; off in its PT-M2 code).
        baseline: see :func:`load_baseline`; None = raw scores.  PT weights are invariant to
            rescaling (a common factor 1/(1-b) of every weight).
        empty_pair: score of an (empty, empty) pair: ``bert_score`` (0, as bert_score 0.3.13
            and gec-metrics) or ``identical`` (1); see the module docstring.
    """

    encoder: Encoder
    component: str = "F"
    idf: bool = False
    baseline: Any = None
    empty_pair: str = "bert_score"

    name: ClassVar[str] = "bertscore"
    unit_weights: ClassVar[bool] = False

    def __post_init__(self):
        if self.component not in COMPONENTS:
            raise ConfigError(f"scorer.component must be one of {COMPONENTS}, got {self.component!r}")
        if self.empty_pair not in EMPTY_PAIR:
            raise ConfigError(f"scorer.empty_pair must be one of {tuple(EMPTY_PAIR)}, got {self.empty_pair!r}")
        # the encoder's layer (its config) is read only for a baseline file: a scorer that a
        # metric may leave unused (CLEME2.0 without weigher=similarity) loads nothing
        self._baseline = None if self.baseline is None else load_baseline(self.baseline, self.encoder.layer)

    def signature(self) -> str:
        b = "none" if self._baseline is None else ",".join(f"{v:.8g}" for v in self._baseline)
        return (f"bertscore({self.component},idf={self.idf},baseline={b},empty_pair={self.empty_pair},"
                f"{self.encoder.signature()})")

    def _weights(self, emb: TokenEmbeddings, idf: tuple[dict[int, float], float] | None) -> np.ndarray:
        w = np.ones(len(emb.ids)) if idf is None else np.array(
            [idf[0].get(int(t), idf[1]) for t in emb.ids]
        )
        w[emb.special] = 0.0
        return w

    def prf(
        self, cands: Sequence[str], refs: Sequence[str], idf_sentences: Sequence[str] | None = None
    ) -> np.ndarray:
        """(P, R, F) of every pair, rescaled if a baseline is set.

        Args:
            cands, refs: shape (B,) each.
            idf_sentences: the idf corpus (required when ``idf``; the run's references).

        Returns:
            shape (B, 3).
        """
        if len(cands) != len(refs):
            raise ValueError(f"{len(cands)} candidates but {len(refs)} references")
        out = np.zeros((len(cands), 3))
        if not cands:
            return out
        pairs, inverse = unique(list(zip(cands, refs)))
        texts, tinv = unique([t for pair in pairs for t in pair])
        idf = None
        if self.idf:
            if idf_sentences is None:
                raise ValueError("BERTScore with idf needs idf_sentences (the references of the run)")
            idf = idf_weights(self.encoder.tokenize(list(dict.fromkeys(idf_sentences))))
        embs = self.encoder.token_embeddings(texts)
        with timed("token_matching"):
            distinct = self._match([(tinv[2 * k], tinv[2 * k + 1]) for k in range(len(pairs))], embs, idf)
        if self._baseline is not None:
            distinct = (distinct - self._baseline) / (1.0 - self._baseline)
        return distinct[inverse]

    def _match(self, pairs: list[tuple[int, int]], embs: Sequence[TokenEmbeddings], idf) -> np.ndarray:
        """Raw (P, R, F) of pairs of indices into ``embs``, shape (B, 3): on the encoder's device
        when it is not the CPU (:func:`greedy_prf_device`, float64 on CUDA), else the float64
        numpy reference path."""
        both_empty = EMPTY_PAIR[self.empty_pair]
        weights = [self._weights(e, idf) for e in embs]
        device = getattr(self.encoder, "device", "cpu")
        if device != "cpu":
            # Texts that tokenise identically share one TokenEmbeddings (and weights): score each
            # distinct pair of them once, so equal inputs give equal scores whatever chunk of
            # the device's batched products they would fall in (PT weights of edits the
            # tokenizer cannot see stay exactly 0).
            slot: dict[int, int] = {}  # id of a distinct TokenEmbeddings -> its number
            first: list[int] = []  # number -> its first text
            which = []  # text -> number
            for i, e in enumerate(embs):
                which.append(slot.setdefault(id(e), len(slot)))
                if which[-1] == len(first):
                    first.append(i)
            distinct, inverse = unique([(which[a], which[b]) for a, b in pairs])
            scores = greedy_prf_device(distinct, [embs[i].vectors for i in first], [weights[i] for i in first],
                                       both_empty, device)
            return scores[inverse]
        vecs = []
        for e in embs:
            v = e.vectors.astype(np.float64)
            norms = np.linalg.norm(v, axis=1, keepdims=True)
            vecs.append(v / np.where(norms == 0, 1.0, norms))
        return _score_grouped(pairs, vecs, weights, both_empty, threads=getattr(self.encoder, "threads", None))

    def score(
        self, cands: Sequence[str], refs: Sequence[str], idf_sentences: Sequence[str] | None = None
    ) -> np.ndarray:
        """The chosen component of every pair, shape (B,)."""
        return self.prf(cands, refs, idf_sentences)[:, COMPONENTS.index(self.component)]


# --------------------------------------------------------------------------- metric
@dataclass(frozen=True)
class BERTScore(PairScoreMetric):
    """BERTScore as a sentence-level GEC metric (Gong et al. 2022, Table 4 "BERTScore").

    Statistics: (P, R, F) of every (system, sentence, reference), shape (S, N, R, 3); a
    sentence's score is the scorer's component against its best reference (highest score);
    the corpus score is the mean over sentences.  With ``scorer.idf`` the idf corpus is every
    reference sentence of the run.
    """

    name: ClassVar[str] = "bertscore"
    stat_names: ClassVar[tuple[str, ...]] = ("P", "R", "F")
    version: ClassVar[str] = "1"

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        S, N, R = len(hypotheses), len(sources), len(references)
        cands, refs = self.pairs(hypotheses, references)
        idf_sents = [references[r][n] for r in range(R) for n in range(N)]
        return self.scorer.prf(cands, refs, idf_sents).reshape(S, N, R, 3)

    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        return stats[..., COMPONENTS.index(self.scorer.component)]
