"""CLEME2.0 (Ye et al., ACL 2025, "CLEME2.0: Towards More Interpretable Evaluation by
Disentangling Edits for Grammatical Error Correction"): CLEME's chunks, scored as four
interpretable rates.

**Chunks** are CLEME's (:mod:`gec_meta.metrics.edit.cleme`: the same partition, through its
:meth:`~gec_meta.metrics.edit.cleme.CLEME.chunk_counts` hook), without length weights.  Each
chunk of the hypothesis H is compared with the references' chunks R_k at the same position
(official code: THUKElab/CLEME v1.1, commit e90abea, ``core/evaluation/metrics/cleme/``):

* ``dependent`` (one count per reference): H edited -> TP if H == R_k, else a false positive,
  *necessary* (FPne) when R_k is edited there and *unnecessary* (FPun) when it is not;
  H unedited -> FN if H != R_k (R_k edited there), else TN.
* ``independent`` (one count for all references, repeated on the reference axis): H edited ->
  TP if H equals some R_k, else FPne if some reference edited the chunk, FPun if none did;
  H unedited -> FN if *every* reference edited it, else TN.

**Rates and score** (``scorers/scorer_heuo.py`` ``HEUOEditScorer.compute_comprehensive_indicator``):

    NE = TP + FPne + FN                 (the edits the sentence needed)
    hit   = TP / NE      wrong = FPne / NE      under = FN / NE       (0 when NE = 0)
    over  = FPun / (TP + FPne + FPun)                                  (0 when that is 0)
    score = a1 hit + a2 (1 - wrong) + a3 (1 - under) + a4 (1 - over)

The weights are ``main.py``'s, which the official CLI passes (the class defaults there,
0.50/0.40/0.05/0.05, are not used by it): ``DEFAULT_HEUO_SCORER_CORPUS`` a = (0.45, 0.35, 0.15,
0.05) for ``level: corpus`` ("CLEME2.0") and ``DEFAULT_HEUO_SCORER_SENTENCE`` a = (0.35, 0.25,
0.20, 0.20) for ``level: sentence`` ("SentCLEME2.0").  They must sum to 1 (the official check,
tolerance 1e-5).  A sentence with nothing to correct and no hypothesis edit scores
a2 + a3 + a4 (0.65 at sentence level), not 1: the official arithmetic, kept.

**Levels and references** (``HEUOEditScorer.score_corpus`` / ``score_sentence``): at corpus
level the rates come from counts accumulated over the corpus, each sentence adding the
reference that maximises the score of the running totals plus its counts, then its own TP,
-FP, -FN, TN (:meth:`CLEME2.running_best`); at sentence level each sentence takes the
reference with the highest (score, hit, -wrong, -under, -over), and the system's rates and
score are the means over sentences.  Ties: the first reference.

**Similarity weighting** (``weigher: similarity``; ``weighers/weigher_similarity.py``
``SimilarityWeigher.get_weights_batch``, what ``main.py`` passes, with BERTScore F1 of
bert-base-uncased): a TP or FP chunk weighs |F(S, R_k) - F(S_H, R_k)|, where S_H is the source
with only that hypothesis chunk applied, R_k the reference text, F the scorer's score (config
group ``scorer``: BERTScore F with the configured encoder); an FN chunk the same with the
reference's chunk applied instead (S_R); a TN weighs 1; an empty S_H/S_R is replaced by S
(weight 0).  The counts become sums of weights, so they depend on the reference also in the
independent mode.  The official weigher is followed exactly; its model (bert-base-uncased) is
not loadable offline, so runs here use ``encoder=minilm`` (the signature names the scorer).
``weigher: none`` (default) gives every chunk weight 1: the official output's ``*_unweighted``
rows, which need no model.

**Edge cases of the official code kept.**  Empty references are ignored when another
reference is not empty (v1.1's ``prepare_datasets``; the hypothesis is always scored: this is
CLEME's ``empty_hypothesis: score``).  Gold edits keep every type but noop.

Statistics: shape (S, N, R, 5), last axis (tp, fp_ne, fp_un, fn, tn): chunk counts, or sums of
chunk weights with ``weigher: similarity``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

import numpy as np

from gec_meta.fields import non_negative, valid
from gec_meta.errors import ConfigError
from gec_meta.metrics.edit.cleme import CLEME, ChunkText
from gec_meta.metrics.edit.core import PRFMetric, lexicographic_best, reference_kind_for
from gec_meta.metrics.edit.pt import PT_TIE_TOLERANCE

TP, FP_NE, FP_UN, FN, TN = range(5)
STAT_NAMES = ("tp", "fp_ne", "fp_un", "fn", "tn")
RATES = ("hit", "wrong", "under", "over")

#: (hit, wrong, under, over) weights of THUKElab/CLEME ``main.py`` (commit e90abea):
#: ``DEFAULT_HEUO_SCORER_CORPUS = HEUOEditScorer(factor_hit=0.45, factor_err=0.35,
#: factor_und=0.15, factor_ove=0.05, ...)`` and ``DEFAULT_HEUO_SCORER_SENTENCE = HEUOEditScorer(
#: factor_hit=0.35, factor_err=0.25, factor_und=0.20, factor_ove=0.20, ...)``.
MAIN_PY_FACTORS = {"corpus": (0.45, 0.35, 0.15, 0.05), "sentence": (0.35, 0.25, 0.20, 0.20)}
WEIGHERS = ("none", "similarity")


def classify(chunks: list[list[ChunkText]], mode: str) -> list[list[tuple[int, int]]]:
    """CLEME2.0's class of every hypothesis chunk against each reference (module docstring).

    Args:
        chunks: the hypothesis' chunks, then each kept reference's (:func:`partition`), shape
            (1 + R_n, C).
        mode: ``dependent`` or ``independent``.

    Returns:
        per reference, shape (R_n, C): (class, chunk index), class one of TP, FP_NE, FP_UN, FN, TN.
    """
    hyp, refs = chunks[0], chunks[1:]
    out = []
    for rc in refs:
        classes = []
        for k, h in enumerate(hyp):
            cands = [rc[k]] if mode == "dependent" else [g[k] for g in refs]
            if h.edited:
                if any(h.tokens == g.tokens for g in cands):
                    classes.append((TP, k))
                else:
                    classes.append((FP_NE if any(g.edited for g in cands) else FP_UN, k))
            else:
                missed = h.tokens != rc[k].tokens if mode == "dependent" else all(g.edited for g in cands)
                classes.append((FN if missed else TN, k))
        out.append(classes)
    return out


def applied_alone(source: Sequence[str], chunks: Sequence[ChunkText], k: int) -> str:
    """The source with only chunk ``k`` of one correction applied (the official weigher's
    ``src_chunks_to_text``).  The chunks cut the source in order: chunk k starts after the
    ``src_len`` source tokens of chunks 0..k-1."""
    start = sum(c.src_len for c in chunks[:k])
    return " ".join([*source[:start], *chunks[k].tokens, *source[start + chunks[k].src_len:]])


def rates(stats: np.ndarray, factors: Sequence[float]) -> tuple[np.ndarray, ...]:
    """(hit, wrong, under, over, score) of statistics of shape (..., 5), each of shape (...):
    the official ``compute_comprehensive_indicator``, operation for operation."""
    tp, fp_ne, fp_un, fn = stats[..., TP], stats[..., FP_NE], stats[..., FP_UN], stats[..., FN]
    ne = tp + fp_ne + fn
    proposed = tp + (fp_ne + fp_un)
    with np.errstate(divide="ignore", invalid="ignore"):
        hit = np.where(ne != 0, tp / ne, 0.0)
        wrong = np.where(ne != 0, fp_ne / ne, 0.0)
        under = np.where(ne != 0, fn / ne, 0.0)
        over = np.where(proposed != 0, fp_un / proposed, 0.0)
    a1, a2, a3, a4 = factors
    score = a1 * hit + a2 * (1 - wrong) + a3 * (1 - under) + a4 * (1 - over)
    return hit, wrong, under, over, score


@dataclass(frozen=True)
class _HEUOChunks(CLEME):
    """CLEME's chunk partition (:meth:`CLEME.statistics`) whose chunks a :class:`CLEME2` scores."""

    owner: Any = field(default=None, kw_only=True, compare=False, repr=False)

    stat_names: ClassVar[tuple[str, ...]] = STAT_NAMES

    def chunk_counts(self, sources, references, parts, kept) -> np.ndarray:
        return self.owner.chunk_counts(sources, references, parts, kept)


@dataclass(frozen=True)
class CLEME2(PRFMetric):
    """CLEME2.0 and SentCLEME2.0 (Ye et al. 2025), see the module docstring.

    Fields:
        mode: ``dependent`` or ``independent`` (the official ``--assumption``).
        level: ``sentence`` (SentCLEME2.0: mean sentence score) or ``corpus`` (rates of the
            accumulated counts).
        factor_hit, factor_wrong, factor_under, factor_over: a1..a4 (official ``factor_hit``,
            ``factor_err``, ``factor_und``, ``factor_ove``); null = ``main.py``'s for the level
            (:data:`MAIN_PY_FACTORS`).  The resolved values enter the signature.
        weigher: ``none`` (every chunk 1) or ``similarity`` (the official SimilarityWeigher
            with ``scorer``).
        scorer: the pair scorer of ``weigher: similarity`` (config group ``scorer``: BERTScore F
            as the official weigher); unused, and not in the signature, with ``none``.
        reference_edits: ``extract`` or ``gold``, as CLEME's (in the signature only when gold).

    Statistics: shape (S, N, R, 5), last axis (tp, fp_ne, fp_un, fn, tn).
    """

    # CLEME2.0 has no F-score: PRFMetric's beta is fixed and hidden (not a config field).
    beta: float = field(default=0.5, init=False, repr=False)
    mode: str = "dependent"
    level: str = field(default="sentence", kw_only=True)
    factor_hit: float | None = field(default=None, metadata=valid(non_negative(), optional=True))
    factor_wrong: float | None = field(default=None, metadata=valid(non_negative(), optional=True))
    factor_under: float | None = field(default=None, metadata=valid(non_negative(), optional=True))
    factor_over: float | None = field(default=None, metadata=valid(non_negative(), optional=True))
    weigher: str = "none"
    scorer: Any = None
    reference_edits: str = "extract"

    corpus_name: ClassVar[str] = "cleme2"
    accepts_hypothesis_edits: ClassVar[bool] = True
    version: ClassVar[str] = "1"
    stat_names: ClassVar[tuple[str, ...]] = STAT_NAMES

    def __post_init__(self):
        super().__post_init__()
        if self.mode not in ("dependent", "independent"):
            raise ConfigError(f"metric.mode must be 'dependent' or 'independent', got {self.mode!r}")
        if self.weigher not in WEIGHERS:
            raise ConfigError(f"metric.weigher must be one of {WEIGHERS}, got {self.weigher!r}")
        if self.weigher == "similarity" and (not hasattr(self.scorer, "score")
                                             or getattr(self.scorer, "unit_weights", False)):
            raise ConfigError("metric.weigher=similarity needs a model scorer in metric.scorer "
                              f"(scorer=bertscore with an encoder, e.g. encoder=minilm), got {self.scorer!r}")
        if self.weigher == "none" and self.scorer is not None:
            # the scorer the config hands over is unused: not held, so it names no device
            object.__setattr__(self, "scorer", None)
        reference_kind_for(self.reference_edits)  # checks the value
        if abs(sum(self.factors) - 1.0) > 1e-5:
            raise ConfigError("metric.factor_hit + factor_wrong + factor_under + factor_over must be 1 "
                              f"(CLEME2.0's check), got {' + '.join(map(str, self.factors))}")

    @property
    def factors(self) -> tuple[float, float, float, float]:
        """(a1, a2, a3, a4): the fields, null ones from :data:`MAIN_PY_FACTORS` of the level."""
        given = (self.factor_hit, self.factor_wrong, self.factor_under, self.factor_over)
        return tuple(float(d if g is None else g) for g, d in zip(given, MAIN_PY_FACTORS[self.level]))

    @property
    def reference_kind(self) -> str:
        return reference_kind_for(self.reference_edits)

    @property
    def tie_tolerance(self) -> float:  # type: ignore[override]
        """PT's float32 tolerance with a model scorer (weights from model states), else 0."""
        return PT_TIE_TOLERANCE if self.weigher == "similarity" else 0.0

    def options(self) -> dict[str, object]:
        opts = super().options()
        opts.update(zip(("factor_hit", "factor_wrong", "factor_under", "factor_over"), self.factors))
        if self.weigher == "similarity":
            opts["scorer"] = self.scorer.signature()
        else:
            del opts["scorer"]
        if opts["reference_edits"] == "extract":
            del opts["reference_edits"]
        return opts

    def stats_options(self) -> dict[str, object]:
        # the factors (like the level) only enter stage 2
        return {k: v for k, v in super().stats_options().items() if not k.startswith("factor_")}

    # ----------------------------------------------------------------- stage 1
    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        """(tp, fp_ne, fp_un, fn, tn) of every (system, sentence, reference), shape (S, N, R, 5)
        (arguments as :meth:`Metric.statistics`): CLEME's chunking, this class's counting."""
        # the similarity weigher runs a model inside the counting hook: in this process only
        # (a forked worker must not use the torch its parent has started)
        threads = self.threads if self.weigher == "none" else 1
        chunker = _HEUOChunks(mode=self.mode, reference_edits=self.reference_edits, threads=threads, owner=self)
        return chunker.statistics(sources, hypotheses, references)

    def chunk_counts(self, sources, references, parts, kept) -> np.ndarray:
        """Counts (or weight sums) of one system's chunks, shape (N, R, 5) (arguments as
        :meth:`CLEME.chunk_counts`); an ignored (empty) reference repeats the first kept one."""
        R = len(references)
        classes = [classify(p, self.mode) for p in parts]
        weights = self._similarity_weights(sources, references, parts, kept, classes) \
            if self.weigher == "similarity" else None
        out = np.zeros((len(parts), R, len(STAT_NAMES)))
        for n, (refs, per_ref) in enumerate(zip(kept, classes)):
            rows = np.zeros((len(refs), len(STAT_NAMES)))
            for j, cls in enumerate(per_ref):
                for c, k in cls:
                    rows[j, c] += 1.0 if weights is None or c == TN else weights[n][j][k]
            for r in range(R):
                out[n, r] = rows[refs.index(r)] if r in refs else rows[0]
        return out

    def _similarity_weights(self, sources, references, parts, kept, classes) -> list[list[dict[int, float]]]:
        """|F(S, R_k) - F(S_chunk, R_k)| of every non-TN chunk (module docstring), per sentence
        and kept reference: shape (N, R_n) of {chunk index: weight}; one scorer call (the
        scorer deduplicates pairs and the encoder caches its states)."""
        blocks = []  # (n, j, position of the anchor (S, R_k), [(chunk, position of (S_chunk, R_k))])
        cands: list[str] = []
        refs_text: list[str] = []
        for n, (refs, per_ref) in enumerate(zip(kept, classes)):
            src = sources[n].split()
            anchor = " ".join(src)
            for j, (r, cls) in enumerate(zip(refs, per_ref)):
                ref_text = references[r][n]
                at = len(cands)
                cands.append(anchor)
                refs_text.append(ref_text)
                items = []
                for c, k in cls:
                    if c == TN:
                        continue
                    chunks = parts[n][1 + j] if c == FN else parts[n][0]
                    items.append((k, len(cands)))
                    cands.append(applied_alone(src, chunks, k) or anchor)  # empty -> S (official)
                    refs_text.append(ref_text)
                blocks.append((n, j, at, items))
        scores = np.asarray(self.scorer.score(cands, refs_text, [t for ref in references for t in ref]),
                            dtype=np.float64)
        out: list[list[dict[int, float]]] = [[{} for _ in refs] for refs in kept]
        for n, j, at, items in blocks:
            for k, i in items:
                out[n][j][k] = abs(scores[at] - scores[i])
        return out

    # ----------------------------------------------------------------- stage 2
    def components(self, stats: np.ndarray) -> tuple[np.ndarray, ...]:
        """(hit, wrong, under, over, score) of statistics of shape (..., 5), each (...)."""
        return rates(stats, self.factors)

    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        """The CLEME2.0 score of statistics of shape (..., 5), shape (...)."""
        return self.components(stats)[4]

    def best_reference(self, stats: np.ndarray) -> np.ndarray:
        """Per sentence: the highest (score, hit, -wrong, -under, -over); the first on a tie
        (official ``score_sentence``).  stats: (S, N, R, 5) -> (S, N)."""
        hit, wrong, under, over, score = self.components(stats)
        return lexicographic_best((score, hit, -wrong, -under, -over))

    def running_best(self, cand: np.ndarray, own: np.ndarray) -> np.ndarray:
        """Official ``score_corpus``: the highest score of the running totals plus the
        reference's counts, then the reference's own TP, -FP, -FN, TN; the first on a tie."""
        score = self.score_from_stats(cand)
        return lexicographic_best((score, own[..., TP], -(own[..., FP_NE] + own[..., FP_UN]),
                                   -own[..., FN], own[..., TN]))

    def chosen_counts(self, stats: np.ndarray) -> np.ndarray:
        """Every sentence's statistics against the reference its level chooses, shape (S, N, 5)."""
        best = self.corpus_best_reference(stats) if self.level == "corpus" else self.best_reference(stats)
        return np.take_along_axis(stats, best[:, :, None, None], axis=2)[:, :, 0, :]

    def corpus_components(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        """What the official scorer prints, per system (each of shape (S,)): hit, wrong, under,
        over and score (of the accumulated counts at corpus level, means of the sentence values
        at sentence level) and the counts (tp, fp_ne, fp_un, fn, tn) of the chosen references.

        Args:
            stats: shape (S, N, R, 5).
        """
        chosen = self.chosen_counts(stats)
        totals = chosen.sum(axis=1)
        if self.level == "corpus":
            values = self.components(totals)
        else:
            values = tuple(v.mean(axis=1) for v in self.components(chosen))
        out = dict(zip((*RATES, "score"), values))
        out.update(zip(STAT_NAMES, np.moveaxis(totals, -1, 0)))
        return out

    def corpus_prf(self, stats: np.ndarray):
        raise NotImplementedError("CLEME2.0 has no P/R/F: see corpus_components")
