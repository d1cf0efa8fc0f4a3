"""Metric ensembles: ``metric=ensemble metric.members=[green,gleu,sentm2] metric.combine=rank_average``.

An ensemble is a metric like any other (statistics, scores, signature, sweeps, leaderboard),
built from member metrics that are metric configs (each composed as ``metric=<name>`` would
be, with the run's ``encoder``, ``scorer``, ``llm`` and ``threads``; a member may carry its own
Hydra overrides: ``"pt_m2 scorer=self"``).

What its scores are:

* **System level, per aggregation** (Goto, Sakai & Watanabe 2025, "Reliability Crisis of
  Reference-free Metrics for GEC", Table 2, code ``gotutiyan/attack-gec-metrics``
  ``experiments/benchmark/base.py`` ``BenchmarkBase.ensemble``): every member's system scores
  under that aggregation (``default`` = its corpus score, ``trueskill`` = its TrueSkill mu, ...)
  are combined across systems: ``rank_average`` = the mean over members of minus the system's
  rank (1 = best), as that code does; ``zscore_mean`` = the mean over members of the z-scored
  system scores (population sd; a member constant over the systems contributes 0).  Every
  :class:`~gec_meta.meta.aggregation.Aggregation` does this for an ensemble
  (:meth:`Ensemble.combine_systems`), on resamples and SPA's permutations too.
* **Sentence level**: the members' sentence scores combined per sentence: ``rank_average`` =
  minus the rank among the systems on that sentence, averaged over members; ``zscore_mean`` =
  each member's sentence scores z-scored over all its (system, sentence) scores, averaged.  A
  (system, sentence) without a score in some member has none in the ensemble (NaN).

Ties in ranks: ``rank_ties=average`` (default) gives tied systems the mean of their ranks
(``scipy.stats.rankdata``'s default, symmetric); ``min`` gives them the best of their ranks,
as attack-gec-metrics' ``sorted_scores.index(s) + 1`` does.

Statistics and cache: the ensemble's statistics are its members' statistics side by side on
the last axis (a reference-free member's one reference slot repeated over the references), each
member computed and cached as that member alone would be
(:func:`gec_meta.meta.task.compute_statistics`), so an ensemble of metrics already run costs no
metric call.  Ranks depend on the other systems, so an ensemble's scores depend on the system
set (:attr:`depends_on_system_set`).
"""

from __future__ import annotations

import copy
import shlex
from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

import numpy as np

from gec_meta.fields import valid, Valid
from gec_meta.errors import ConfigError
from gec_meta.metrics.base import Metric

#: How members' scores are combined (``metric.combine``).
COMBINE = ("rank_average", "zscore_mean")
#: How tied scores are ranked (``metric.rank_ties``).
RANK_TIES = ("average", "min")
#: The root config groups a member config may interpolate; the ensemble passes the run's.
CONTEXT = ("encoder", "scorer", "llm", "threads")


def _one_of(options: Sequence[str]) -> Valid:
    return Valid(lambda x: x in options, f"one of {list(options)}")


# --------------------------------------------------------------------------- combining (pure)
#: Scores this close (relative) are one value when ranked: the same mean computed in another
#: summation order (a vectorised resample or permutation) differs in the last bits, which must
#: not decide a rank.
RANK_RESOLUTION = 1e-12


def descending_ranks(scores: np.ndarray, ties: str = "average") -> np.ndarray:
    """Rank 1 = highest score along the last axis; NaN scores get NaN and are not ranked.

    Args:
        scores: shape (..., S).
        ties: ``average`` (tied scores share the mean of their ranks, ``scipy.stats.rankdata``)
            or ``min`` (they share the best, attack-gec-metrics' ``sorted(...).index(s) + 1``).
            Scores within :data:`RANK_RESOLUTION` (relative) of each other are tied.

    Returns:
        float64, shape (..., S).
    """
    x = np.asarray(scores, dtype=np.float64)
    a, b = x[..., :, None], x[..., None, :]  # a: the ranked system, b: every system
    tol = RANK_RESOLUTION * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    higher = (b > a + tol).sum(axis=-1)  # for each system: how many score higher
    equal = (np.abs(b - a) <= tol).sum(axis=-1)  # itself included
    ranks = 1.0 + higher + ((equal - 1) / 2.0 if ties == "average" else 0.0)
    return np.where(np.isnan(x), np.nan, ranks)


def _zscore(x: np.ndarray, axis) -> np.ndarray:
    """(x - mean) / population sd over ``axis`` (finite values only); 0 where the sd is 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nanmean(x, axis=axis, keepdims=True)
        sd = np.sqrt(np.nanmean((x - mean) ** 2, axis=axis, keepdims=True))
        return np.where(sd > 0, (x - mean) / np.where(sd > 0, sd, 1.0), np.where(np.isnan(x), np.nan, 0.0))


def combine_systems(scores: Sequence[np.ndarray], combine: str, ties: str = "average") -> np.ndarray:
    """Members' system scores -> the ensemble's, combined across the last (system) axis.

    Args:
        scores: one array per member, each of shape (..., S) (e.g. (S,), or (P, S) resamples).

    Returns:
        shape (..., S): mean over members of -rank (``rank_average``) or of the z-scores
        (``zscore_mean``).
    """
    stack = np.stack([np.asarray(s, dtype=np.float64) for s in scores])  # (M, ..., S)
    parts = -descending_ranks(stack, ties) if combine == "rank_average" else _zscore(stack, axis=-1)
    return parts.mean(axis=0)


def combine_sentences(scores: Sequence[np.ndarray], combine: str, ties: str = "average") -> np.ndarray:
    """Members' sentence scores, each (S, N) -> the ensemble's (S, N): per sentence, -rank among
    the systems averaged over members (``rank_average``), or each member z-scored over all its
    scores and averaged (``zscore_mean``); NaN where any member has no score."""
    stack = np.stack([np.asarray(s, dtype=np.float64) for s in scores])  # (M, S, N)
    if combine == "rank_average":
        parts = -np.swapaxes(descending_ranks(np.swapaxes(stack, 1, 2), ties), 1, 2)
    else:
        parts = _zscore(stack, axis=(1, 2))
    return parts.mean(axis=0)


def combine_swapped(bases: Sequence[np.ndarray], swapped: Sequence[np.ndarray], pairs, combine: str,
                    ties: str = "average") -> np.ndarray:
    """The ensemble's scores of systems i and j when they swap statistics (SPA's permutations).

    Args:
        bases: per member, its system scores (S,) without swaps.
        swapped: per member, its swapped scores of every pair, shape (pairs, R, 2)
            (:meth:`gec_meta.meta.aggregation.Aggregation.swapped_pairs_scores`).

    Returns:
        shape (pairs, R, 2): per pair and permutation, the combination over members of the full
        system vector (the other systems at their observed scores) at i and j.  Exact where a
        system's score depends only on its own statistics (``default``, ``average``); under
        Expected Wins and TrueSkill the other systems' scores would move a little too (their
        games against i and j change), which this leaves out: recomputing every system for
        every permutation of every pair costs hours.
    """
    out = np.zeros(np.asarray(swapped[0]).shape)
    for q, (i, j) in enumerate(pairs):
        full = []
        for base, sw in zip(bases, swapped):
            v = np.broadcast_to(np.asarray(base, dtype=np.float64), (sw.shape[1], len(base))).copy()  # (R, S)
            v[:, i], v[:, j] = sw[q, :, 0], sw[q, :, 1]
            full.append(v)
        combined = combine_systems(full, combine, ties)  # (R, S)
        out[q, :, 0], out[q, :, 1] = combined[:, i], combined[:, j]
    return out


# --------------------------------------------------------------------------- members
def parse_member(spec) -> tuple[str, tuple[str, ...]]:
    """``"pt_m2 scorer=self encoder=minilm"`` -> (``pt_m2``, overrides)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"metric.members: a member is a metric config name (and overrides), got {spec!r}")
    name, *overrides = shlex.split(spec)
    return name, tuple(overrides)


def build_member(spec: str, context: dict[str, Any]) -> Metric:
    """The metric of member ``spec``, composed as ``metric=<name> <overrides>``; the config
    values it interpolates from ``encoder``, ``scorer``, ``llm``, ``threads`` are the run's
    (``context``) unless its overrides set that group."""
    from hydra.errors import HydraException, MissingConfigException
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    from gec_meta.config import compose_anywhere, group_options

    name, overrides = parse_member(spec)
    if name == "ensemble":
        raise ConfigError("metric.members: an ensemble cannot be a member of an ensemble")
    try:
        node = compose_anywhere((f"metric={name}", *overrides)).metric
    except MissingConfigException:
        raise ConfigError(f"metric.members: unknown metric {name!r}; available: {group_options('metric')}") from None
    except HydraException as exc:
        raise ConfigError(f"metric.members: {spec!r}: {str(exc).splitlines()[0]}") from None
    named = {o.split("=", 1)[0].lstrip("+~").split(".")[0] for o in overrides}
    raw = OmegaConf.to_container(node, resolve=False)
    given = {key: context[group] for key, value in raw.items() for group in CONTEXT
             if value == f"${{{group}}}" and group not in named and context.get(group) is not None}
    return instantiate(node, **given)


@dataclass(frozen=True)
class Ensemble(Metric):
    """A combination of member metrics (module docstring).

    Fields:
        members: member metric config names, each optionally followed by Hydra overrides
            (``"pt_m2 scorer=self"``), or :class:`Metric` objects (Python API).
        combine: ``rank_average`` (Goto et al. 2025) or ``zscore_mean``.
        rank_ties: ``average`` or ``min`` (attack-gec-metrics' ranks).
        encoder, scorer, llm, threads: the run's config groups (config nodes, or objects from
            Python), passed to the members that interpolate them (``conf/metric/ensemble.yaml``);
            not part of the identity (the members' signatures name what they used).
    """

    name: ClassVar[str] = "ensemble"
    version: ClassVar[str] = "1"
    cacheable: ClassVar[bool] = False  # its members are cached, each as that metric alone
    depends_on_system_set: ClassVar[bool] = True
    reference_kind: ClassVar[str] = "any"  # every member reads the form it needs
    #: The run's encoder/scorer/llm arrive as config nodes, built only inside the members that
    #: use them (an unused default scorer must not load its model).
    instantiate_recursively: ClassVar[bool] = False

    members: Any = None
    combine: str = field(default="rank_average", metadata=valid(_one_of(COMBINE)))
    rank_ties: str = field(default="average", metadata=valid(_one_of(RANK_TIES)))
    encoder: Any = field(default=None, repr=False, compare=False)
    scorer: Any = field(default=None, repr=False, compare=False)
    llm: Any = field(default=None, repr=False, compare=False)
    threads: Any = field(default=None, repr=False, compare=False)
    _metrics: tuple = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        specs = self.members
        if isinstance(specs, str):  # "green,gleu" or "[green,gleu]" (a command line's -m members=...)
            specs = [m.strip() for m in specs.strip().strip("[]").split(",") if m.strip()]
        elif specs is not None and not isinstance(specs, Metric) and hasattr(specs, "__iter__"):
            specs = list(specs)  # a ListConfig from Hydra
        if specs is None or isinstance(specs, Metric) or len(specs) == 0:
            raise ConfigError("metric.members: give the member metrics, e.g. metric.members=[green,gleu,sentm2]"
                              + ("" if specs is None or len(specs) == 0 else f" (a list), got {specs!r}"))
        specs = tuple(s if isinstance(s, Metric) else str(s) for s in specs)
        context = {"encoder": self.encoder, "scorer": self.scorer, "llm": self.llm, "threads": self.threads}
        built = tuple(s if isinstance(s, Metric) else build_member(s, context) for s in specs)
        if any(isinstance(m, Ensemble) for m in built):
            raise ConfigError("metric.members: an ensemble cannot be a member of an ensemble")
        object.__setattr__(self, "members", specs)
        object.__setattr__(self, "_metrics", built)

    # ----------------------------------------------------------------- members
    @property
    def metrics(self) -> tuple[Metric, ...]:
        """The member metrics (bound, after :meth:`bind`)."""
        return self._metrics

    @property
    def needs_references(self) -> bool:  # an instance property over the class attribute
        return any(m.needs_references for m in self._metrics)

    @property
    def needs_source(self) -> bool:
        return any(m.needs_source for m in self._metrics)

    @property
    def permutable(self) -> bool:
        return all(m.permutable for m in self._metrics)

    @property
    def stat_names(self) -> tuple[str, ...]:
        return tuple(f"{k}:{m.name}:{s}" for k, m in enumerate(self._metrics) for s in m.stat_names)

    def member_references(self, member: Metric, references):
        """The references in the form ``member`` reads (``references`` from
        :meth:`gec_meta.data.refsets.References.for_metric` ``("any")``, or one form for all)."""
        if not member.needs_references:
            return ()
        form = getattr(references, "form", None)
        return form(getattr(member, "reference_kind", "text")) if form is not None else references

    def bind(self, sources, hypotheses, references, systems=None) -> "Ensemble":
        bound = copy.copy(self)
        object.__setattr__(bound, "_metrics", tuple(
            m.bind(sources, hypotheses, self.member_references(m, references), systems=systems) for m in self._metrics))
        return bound

    # ----------------------------------------------------------------- stage 1: statistics
    def join_statistics(self, parts: Sequence[np.ndarray]) -> np.ndarray:
        """Members' statistics (S, N, R_m, K_m), R_m = R or 1 -> (S, N, R, sum K_m)."""
        R = max(p.shape[2] for p in parts)
        return np.concatenate([np.broadcast_to(p, p.shape[:2] + (R, p.shape[3])) for p in parts], axis=3)

    def member_parts(self, stats: np.ndarray) -> list[tuple[Metric, np.ndarray]]:
        """(member, its statistics) of every member, from the ensemble's (S, N, R, K)."""
        out, k = [], 0
        for m in self._metrics:
            width = len(m.stat_names)
            part = stats[..., k:k + width]
            out.append((m, part if m.needs_references else part[..., :1, :]))
            k += width
        return out

    def member_statistics(self, sources, hypotheses, references, use_cache: bool = True, systems=None) -> np.ndarray:
        """Every (bound) member's statistics through the statistics cache, side by side."""
        from gec_meta.meta.task import compute_statistics

        return self.join_statistics([
            compute_statistics(m, sources, hypotheses, self.member_references(m, references), use_cache,
                               systems=systems, bind=False)
            for m in self._metrics])

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        return self.member_statistics(sources, hypotheses, references, use_cache=False)

    # ----------------------------------------------------------------- stage 2: scores
    def combine_systems(self, scores: Sequence[np.ndarray]) -> np.ndarray:
        """The members' system scores under one aggregation, each (..., S) -> (..., S);
        a member whose lower scores are better is negated first."""
        signed = [s if m.higher_is_better else -np.asarray(s) for m, s in zip(self._metrics, scores)]
        return combine_systems(signed, self.combine, self.rank_ties)

    def combine_swapped(self, bases, swapped, pairs) -> np.ndarray:
        """:func:`combine_swapped` with the members' directions."""
        sign = [1.0 if m.higher_is_better else -1.0 for m in self._metrics]
        return combine_swapped([s * np.asarray(b) for s, b in zip(sign, bases)],
                               [s * np.asarray(w) for s, w in zip(sign, swapped)], pairs, self.combine, self.rank_ties)

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        parts = [m.comparable_scores(s) if m.higher_is_better else -np.asarray(m.comparable_scores(s))
                 for m, s in self.member_parts(stats)]
        return combine_sentences(parts, self.combine, self.rank_ties)

    @property
    def corpus_reduction(self) -> str | None:
        return None

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        return self.combine_systems([m.corpus_scores(s) for m, s in self.member_parts(stats)])

    def diagnostics(self, stats: np.ndarray, systems: Sequence[str]) -> dict[str, object]:
        out = {}
        for k, (m, s) in enumerate(self.member_parts(stats)):
            d = m.diagnostics(s, systems)
            if d:
                out[f"{k}:{m.name}"] = d
        return out

    # ----------------------------------------------------------------- identity
    def language_problem(self, language: str) -> str | None:
        """The first member's problem with ``language`` (None when every member can score it)."""
        return next((p for p in (m.language_problem(language) for m in self._metrics) if p), None)

    def for_language(self, language: str) -> "Ensemble":
        """This ensemble with every member set to ``language`` (ConfigError as
        :meth:`Metric.for_language` when a member cannot score it)."""
        out = super().for_language(language)
        object.__setattr__(out, "_metrics", tuple(m.for_language(language) for m in out._metrics))
        return out

    def options(self) -> dict[str, object]:
        return {"combine": self.combine, "rank_ties": self.rank_ties,
                "members": "[" + ";".join(m.signature() for m in self._metrics) + "]"}

    def signature(self) -> str:
        from gec_meta.meta.components import component

        return component(self.name, {**self.options(), "v": self.version})

    def cache_key(self) -> str:
        return "|".join([self.name, f"v:{self.version}", f"combine:{self.combine}", f"ties:{self.rank_ties}",
                         *(f"member:{m.cache_key()}" for m in self._metrics)])
