"""Edit-level attribution of sentence-level scores (Goto, Vasselli & Watanabe 2024,
"Improving Explainability of Sentence-level Metrics via Edit-level Attribution for Grammatical
Error Correction", arXiv:2412.13110; gec-metrics' ``analysis.attributor``).

A hypothesis H of a source S is S with its ERRANT edits e_1 .. e_E applied.  Every subset (a
*coalition*) T of the edits gives a sentence S_T = S with the edits of T applied, and the value

    v(T) = M(S, S_T)          (the metric's sentence score, against the sentence's references)

so v({}) = M(S, S) = ``src_score`` and v(all edits) = M(S, H) = ``sent_score``.  The
contribution of edit i is, by ``method``:

* ``add``:      v({i}) - v({})                          (the source plus that edit)
* ``sub``:      v(all) - v(all \\ {i})                  (the hypothesis without that edit)
* ``shapley``:  sum over T in all \\ {i} of |T|! (E - |T| - 1)! / E! (v(T + i) - v(T))
               (the Shapley value, Eq. 2 of the paper), exact (all 2^E coalitions) up to
               ``max_exact_edits`` edits, beyond that the mean marginal contribution of each
               edit over ``num_samples`` uniformly drawn edit orders (permutation sampling,
               Castro et al. 2009), seeded.

Both Shapley forms sum to ``sent_score - src_score`` (efficiency; every sampled order's
marginals telescope to it too).  ``normalize=True`` rescales ``add``/``sub`` values so they
sum to it as well (gec-metrics' ``post_process``; 0 when they sum to 0).

Differences from gec-metrics, on purpose: ``sent_score`` here is M(S, H) itself (gec-metrics
reports the difference M(S, H) - M(S, S) under that name), so the efficiency identity reads
``sum(attribution) == sent_score - src_score``; ``add``/``sub`` are not normalised unless asked;
sampled orders are drawn with replacement from a ``numpy.random.Generator`` seeded per sentence
(``default_rng([seed, n])``: a sentence's values do not depend on the other sentences of the
call), and an exact computation is used whenever E <= ``max_exact_edits``.

Which metrics: any metric whose sentence score is a function of (source, hypothesis,
references) -- a corpus-level metric is attributed through its sentence-level form
(:meth:`Metric.sentence_scores`: ``m2`` gives SentM2's sentence F0.5, best reference per
sentence).  Metrics whose statistics depend on the set of systems scored together (those that
override :meth:`Metric.bind`: GoToScorer's weights, LLM prompts grouping systems, score files)
are refused with a :class:`ConfigError`.

Batching: all coalition sentences of all sentences are deduplicated and scored in ONE
:func:`gec_meta.meta.task.compute_statistics` call (one pseudo-system whose "sentences" are the
edited sentences, each with its own source and references), so neural metrics batch and ERRANT
parses each text once.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np

from gec_meta.edits.edit import Edit, apply_edits
from gec_meta.fields import check_fields, integer, valid
from gec_meta.errors import ConfigError, DataError
from gec_meta.metrics.base import Metric

METHODS = ("add", "sub", "shapley")

#: Exact Shapley values score 2^E coalitions; above this many edits they are sampled.
#: 10 edits = 1024 sentences to score per hypothesis: a cost choice (issue 19, item 8), not a
#: constant of the paper.
MAX_EXACT_EDITS = 10
#: Edit orders drawn for sampled Shapley values (a cost choice; the error of each value falls
#: as 1/sqrt(num_samples)).
NUM_SAMPLES = 1000
#: The largest ``max_exact_edits`` accepted: 2^16 = 65,536 edited sentences per hypothesis
#: (measured with SentM2 on 2 busy cores: 305 s and 0.4 GB for one 16-edit sentence; each
#: further edit doubles both, 2^31 coalitions ended in a MemoryError).  Beyond it, Shapley
#: values are sampled.
MAX_EXACT_EDITS_LIMIT = 16
#: The most sampled edit orders accepted (10x the default: values to ~1% of their range); a
#: sentence with E edits scores up to num_samples x (E - 1) + 2 edited sentences.
MAX_NUM_SAMPLES = 10_000


@dataclass(frozen=True)
class ShapleyOptions:
    """The options of Shapley values, with their valid ranges (checked on construction)."""

    max_exact_edits: int = field(default=MAX_EXACT_EDITS, metadata=valid(
        integer(0, hi=MAX_EXACT_EDITS_LIMIT), key="max_exact_edits (--max-exact-edits)"))
    num_samples: int = field(default=NUM_SAMPLES, metadata=valid(
        integer(1, hi=MAX_NUM_SAMPLES), key="num_samples (--num-samples)"))
    seed: int = field(default=0, metadata=valid(integer(0), key="seed (--seed)"))

    def __post_init__(self):
        check_fields(self, "")


# ----------------------------------------------------------------------------- coalitions
def full_mask(num_edits: int) -> int:
    """The coalition of all ``num_edits`` edits (bit i = edit i)."""
    return (1 << num_edits) - 1


def apply_coalition(source: str, edits: Sequence[Edit], mask: int) -> str:
    """The source with the edits whose bit is set in ``mask`` applied."""
    return apply_edits(source, [e for i, e in enumerate(edits) if mask >> i & 1])


def shapley_weights(num_edits: int) -> np.ndarray:
    """|T|! (E - |T| - 1)! / E! for |T| = 0 .. E-1, shape (E,) (Shapley 1953; Eq. 2 of
    Goto et al. 2024)."""
    E = num_edits
    return np.array([math.factorial(s) * math.factorial(E - s - 1) / math.factorial(E) for s in range(E)])


def exact_shapley(values: np.ndarray) -> np.ndarray:
    """Exact Shapley values from the values of all coalitions.

    Args:
        values: shape (2^E,), ``values[mask]`` = v(coalition ``mask``).

    Returns:
        shape (E,).
    """
    values = np.asarray(values, dtype=np.float64)
    E = len(values).bit_length() - 1
    if len(values) != 1 << E:
        raise ValueError(f"exact_shapley needs 2^E coalition values, got {len(values)}")
    masks = np.arange(1 << E)
    sizes = np.array([bin(m).count("1") for m in masks])
    weights = shapley_weights(E)
    phi = np.zeros(E)
    for i in range(E):
        without = masks[(masks >> i & 1) == 0]
        phi[i] = np.sum(weights[sizes[without]] * (values[without | 1 << i] - values[without]))
    return phi


def prefix_masks(orders: np.ndarray) -> np.ndarray:
    """The coalitions met along each edit order: ``out[p, k]`` = the first k edits of order p.

    Args:
        orders: shape (P, E), each row a permutation of 0 .. E-1.

    Returns:
        int array of shape (P, E + 1); column 0 is the empty coalition, column E all edits.
    """
    orders = np.asarray(orders, dtype=np.int64)
    bits = np.left_shift(1, orders)
    return np.concatenate([np.zeros((len(orders), 1), dtype=np.int64), np.cumsum(bits, axis=1)], axis=1)


def sampled_shapley(value: Mapping[int, float], orders: np.ndarray) -> np.ndarray:
    """Permutation-sampled Shapley values: each edit's mean marginal contribution
    v(prefix + i) - v(prefix) over the given edit orders (Castro et al. 2009).

    Args:
        value: coalition mask -> v, holding every mask of :func:`prefix_masks` (orders).
        orders: shape (P, E).

    Returns:
        shape (E,).
    """
    orders = np.asarray(orders, dtype=np.int64)
    P, E = orders.shape
    v = np.vectorize(lambda m: value[int(m)], otypes=[np.float64])(prefix_masks(orders))  # (P, E+1)
    marginal = np.diff(v, axis=1)  # (P, E): marginal[p, k] belongs to edit orders[p, k]
    phi = np.zeros(E)
    np.add.at(phi, orders, marginal)
    return phi / P


@dataclass(frozen=True)
class Plan:
    """The coalitions one sentence needs, and how its attribution follows from their values.

    Attributes:
        method: ``add``, ``sub`` or ``shapley``.
        num_edits: E.
        masks: the coalitions to score (always with 0 and :func:`full_mask`), sorted.
        orders: shape (P, E), the sampled edit orders of sampled Shapley; None otherwise.
    """

    method: str
    num_edits: int
    masks: tuple[int, ...]
    orders: np.ndarray | None = None

    @property
    def sampled(self) -> bool:
        return self.orders is not None

    def attribution(self, value: Mapping[int, float], normalize: bool = False) -> np.ndarray:
        """The attribution of each edit, shape (E,), from ``value`` (mask -> v) over :attr:`masks`."""
        E, full = self.num_edits, full_mask(self.num_edits)
        if self.method == "add":
            phi = np.array([value[1 << i] - value[0] for i in range(E)], dtype=np.float64)
        elif self.method == "sub":
            phi = np.array([value[full] - value[full ^ 1 << i] for i in range(E)], dtype=np.float64)
        elif self.sampled:
            return sampled_shapley(value, self.orders)
        else:
            return exact_shapley(np.array([value[m] for m in range(1 << E)]))
        if normalize:  # gec-metrics' AttributorAdd/AttributorSub.post_process
            total = phi.sum()
            phi = phi * ((value[full] - value[0]) / total if total != 0 else 0.0)
        return phi


def plan(method: str, num_edits: int, max_exact_edits: int = MAX_EXACT_EDITS,
         num_samples: int = NUM_SAMPLES, rng: np.random.Generator | None = None) -> Plan:
    """The coalitions ``method`` needs for ``num_edits`` edits.

    Args:
        rng: draws the edit orders of sampled Shapley (needed only when
            ``num_edits > max_exact_edits``).
    """
    if method not in METHODS:
        raise ConfigError(f"attribution method must be one of {METHODS}, got {method!r}")
    ShapleyOptions(max_exact_edits, num_samples)
    E, full = num_edits, full_mask(num_edits)
    if method == "add":
        return Plan(method, E, tuple(sorted({0, full, *(1 << i for i in range(E))})))
    if method == "sub":
        return Plan(method, E, tuple(sorted({0, full, *(full ^ 1 << i for i in range(E))})))
    if E <= max_exact_edits:
        return Plan(method, E, tuple(range(1 << E)))
    if rng is None:
        raise ValueError("sampled Shapley values need a numpy Generator (rng)")
    orders = np.stack([rng.permutation(E) for _ in range(num_samples)])
    return Plan(method, E, tuple(sorted(set(prefix_masks(orders).ravel().tolist()))), orders)


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Attribution:
    """The attribution of one hypothesis' edits.

    Attributes:
        src, hyp: the tokenised source and hypothesis.
        src_score: M(S, S).
        sent_score: M(S, H).
        edits: shape (E,), the hypothesis' ERRANT edits (noop dropped).
        attribution: shape (E,), each edit's contribution.
        method: ``add``, ``sub`` or ``shapley``.
        sampled: True for permutation-sampled Shapley values.
        samples: the number of sampled edit orders (0 unless sampled).
        seed: the seed of the sampled orders, ``numpy.random.default_rng(seed)`` (``[seed,
            sentence id]``; None unless sampled).
    """

    src: str
    hyp: str
    src_score: float
    sent_score: float
    edits: tuple[Edit, ...]
    attribution: np.ndarray
    method: str
    sampled: bool = False
    samples: int = 0
    seed: tuple[int, ...] | None = None

    def to_json(self) -> dict:
        """``{"src_score", "sent_score", "edits": [[start, end, correction, type], ...],
        "attribution": [...], "method", "sampling"}`` (issue 19, item 8); ``sampling`` is
        null for exact values, else ``{"orders": P, "seed": [seed, sentence id]}``: what
        reproduces them."""
        return {
            "src_score": float(self.src_score),
            "sent_score": float(self.sent_score),
            "edits": [[e.start, e.end, e.correction, e.type] for e in self.edits],
            "attribution": [float(x) for x in self.attribution],
            "method": self.method,
            "sampling": {"orders": self.samples, "seed": list(self.seed)} if self.sampled else None,
        }


def check_sentence_level(metric: Metric) -> None:
    """Refuse metrics whose sentence score is not a function of one (source, hypothesis,
    references): those whose statistics depend on the system set
    (:attr:`Metric.depends_on_system_set`)."""
    if metric.depends_on_system_set:
        raise ConfigError(
            f"metric {metric.name}: its scores depend on the set of systems scored together "
            f"({type(metric).__name__}.bind), so one edited sentence has no score of its own; "
            "attribute a metric whose sentence score depends only on source, hypothesis and references"
        )


def score_texts(metric: Metric, sources: Sequence[str], texts: Sequence[str], owners: Sequence[int],
                references=None, use_cache: bool = True) -> np.ndarray:
    """Sentence scores of texts, each scored as a hypothesis of sentence ``owners[m]``, in one
    metric call.

    Args:
        sources: shape (N,).
        texts: shape (M,).
        owners: shape (M,), the sentence index of each text.
        references: shape (R, N) in the form the metric reads, or None (reference-free).

    Returns:
        shape (M,): :meth:`Metric.sentence_scores` (best reference per text).
    """
    from gec_meta.meta.task import compute_statistics

    srcs = [sources[n] for n in owners]
    refs = None
    if metric.needs_references:
        if not references:
            raise ConfigError(f"metric {metric.name} needs references")
        refs = (references.sentences(owners) if hasattr(references, "sentences")  # keeps a stand-in mask
                else [tuple(r[n] for n in owners) for r in references])
    stats = compute_statistics(metric, srcs, [list(texts)], refs, use_cache=use_cache, bind=False)
    return np.asarray(metric.sentence_scores(stats)[0], dtype=np.float64)


def attribute_edits(
    metric: Metric,
    sources: Sequence[str],
    edits: Sequence[Sequence[Edit]],
    references=None,
    method: str = "shapley",
    *,
    hypotheses: Sequence[str] | None = None,
    max_exact_edits: int = MAX_EXACT_EDITS,
    num_samples: int = NUM_SAMPLES,
    seed: int = 0,
    sentence_ids: Sequence[int] | None = None,
    normalize: bool = False,
    use_cache: bool = True,
) -> list[Attribution]:
    """Attribute the sentence score of every edited sentence to its edits.

    Args:
        sources: shape (N,), tokenised.
        edits: shape (N, E_n), non-overlapping edits of each source.
        references: shape (R, N), in the form the metric reads (``References.for_metric``),
            or None for reference-free metrics.
        hypotheses: shape (N,), the hypotheses the edits came from (checked: applying all
            edits must give them); None = the sources with all edits applied.
        max_exact_edits: exact Shapley values up to this many edits, sampled beyond.
        num_samples: edit orders per sentence for sampled Shapley values.
        seed: sampled orders of sentence n come from ``numpy.random.default_rng([seed, id_n])``.
        sentence_ids: shape (N,), the sentences' 0-based numbers in their file (seeding and
            error messages); default 0 .. N-1.  A sentence attributed alone (``--line``) then
            gets the same sampled orders as in a run over the whole file.
        normalize: rescale ``add``/``sub`` values to sum to sent_score - src_score.

    Returns:
        shape (N,).

    Raises:
        ConfigError: an unknown method, bad sampling options, or a metric refused by
            :func:`check_sentence_level`.
        DataError: edits that do not rebuild their hypothesis.
    """
    check_sentence_level(metric)
    ShapleyOptions(max_exact_edits, num_samples, seed)
    if len(edits) != len(sources):
        raise ValueError(f"{len(edits)} edit lists for {len(sources)} sources")
    ids = list(range(len(sources))) if sentence_ids is None else [int(i) for i in sentence_ids]
    if len(ids) != len(sources):
        raise ValueError(f"{len(ids)} sentence ids for {len(sources)} sources")
    plans = [plan(method, len(e), max_exact_edits, num_samples, np.random.default_rng([seed, i]))
             for i, e in zip(ids, edits)]
    full_texts = [apply_coalition(src, e, full_mask(len(e))) for src, e in zip(sources, edits)]
    if hypotheses is not None:
        for n, (hyp, text) in enumerate(zip(hypotheses, full_texts)):
            if " ".join(hyp.split()) != text:
                raise DataError(f"sentence #{ids[n]} (line {ids[n] + 1}): applying its ERRANT edits gives {text!r}, "
                                f"not the hypothesis {hyp!r}")
    # One deduplicated metric call over every coalition sentence of every sentence.
    index: dict[tuple[int, str], int] = {}
    where: list[dict[int, int]] = []
    for n, (src, e, p) in enumerate(zip(sources, edits, plans)):
        slots = {}
        for mask in p.masks:
            text = apply_coalition(src, e, mask)
            slots[mask] = index.setdefault((n, text), len(index))
        where.append(slots)
    keys = list(index)
    scores = score_texts(metric, sources, [t for _, t in keys], [n for n, _ in keys], references, use_cache)
    out = []
    for n, (src, e, p) in enumerate(zip(sources, edits, plans)):
        value = {mask: float(scores[k]) for mask, k in where[n].items()}
        out.append(Attribution(src, hypotheses[n] if hypotheses is not None else full_texts[n],
                               value[0], value[full_mask(len(e))], tuple(e),
                               p.attribution(value, normalize), method, p.sampled,
                               len(p.orders) if p.sampled else 0, (seed, ids[n]) if p.sampled else None))
    return out


def attribute(metric: Metric, sources: Sequence[str], hypotheses: Sequence[str], references=None,
              method: str = "shapley", threads: int | None = None, **options) -> list[Attribution]:
    """:func:`attribute_edits` with each hypothesis' ERRANT edits (noop dropped).

    Args:
        sources, hypotheses: shape (N,), tokenised.
        references: shape (R, N) in the form the metric reads, or None.
        threads: CPU threads for ERRANT extraction.
        options: :func:`attribute_edits` keywords.
    """
    from gec_meta.edits.edit_sets import errant_edit_sets

    if len(hypotheses) != len(sources):
        raise ValueError(f"{len(hypotheses)} hypotheses for {len(sources)} sources")
    edits = errant_edit_sets(sources, [hypotheses], threads, language=metric.language)[0]
    return attribute_edits(metric, sources, edits, references, method, hypotheses=hypotheses, **options)


# ----------------------------------------------------------------------------- summaries
def error_category(edit_type: str, level: int = 3) -> str:
    """An ERRANT type at ``errant_compare -cat`` level: 1 = operation (M/R/U), 2 = type
    without operation (NOUN, VERB:SVA, ...), 3 = full type (R:NOUN)."""
    if level == 1:
        return edit_type.split(":", 1)[0]
    if level == 2:
        return edit_type.split(":", 1)[1] if ":" in edit_type else edit_type
    return edit_type


def summarize_by_type(attributions: Iterable[Attribution], level: int = 3) -> dict[str, dict[str, float]]:
    """Which error types a metric rewards: per ERRANT type, over all edits of all sentences.

    Returns:
        ``{type: {"count", "mean", "total", "positive", "negative"}}`` (count of edits, mean and
        sum of their attributions, how many are > 0 and < 0), types sorted, plus ``"ALL"``.
    """
    values: dict[str, list[float]] = defaultdict(list)
    for att in attributions:
        for e, a in zip(att.edits, att.attribution):
            values[error_category(e.type, level)].append(float(a))

    def row(v: list[float]) -> dict[str, float]:
        x = np.asarray(v, dtype=np.float64)
        return {"count": len(x), "mean": float(x.mean()) if len(x) else 0.0, "total": float(x.sum()),
                "positive": int((x > 0).sum()), "negative": int((x < 0).sum())}

    out = {t: row(values[t]) for t in sorted(values)}
    out["ALL"] = row([a for v in values.values() for a in v])
    return out
