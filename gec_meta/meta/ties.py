"""Tie-calibrated pairwise accuracy (Deutsch et al. 2023, "Ties Matter", arXiv:2305.14324).

Sentence level.  ``human`` and ``metric`` are float arrays of shape (G, S): G groups (judged
items: one source sentence and the systems the judge ranked), S systems, higher = better for
both (pass ``human = -rank``).  NaN in ``human`` means the system was not judged in that group;
NaN in ``metric`` means it has no score there; either way the system takes no part in that
group's pairs (mt-metrics-eval's ``tau_optimization._enumerate_pairs`` drops the pair when
either value is ``None``).

For every pair (i, j), i < j, of systems that take part in a group, with Δh = h_i - h_j and
Δm = m_i - m_j:

* the humans tie when Δh == 0 exactly; the metric ties when |Δm| <= ε
  (``stats._MatrixSufficientStatistics``: ``np.abs(x_diffs) <= epsilon``);
* T_hm: both tie; T_h: humans only; T_m: metric only; C: neither, same sign; D: neither,
  opposite signs; N = C + D + T_h + T_m + T_hm;
* acc_eq = (C + T_hm) / N and tau_eq = (C + T_hm - D - T_h - T_m) / N
  (Deutsch et al. 2023, §3 and §4; ``TauSufficientStats.acc_23`` / ``tau_23``).

``average="item"`` is the macro average over groups with at least one pair (mt-metrics-eval's
``average_by='item'``: rows with fewer than two scores are skipped); ``average="none"`` pools
the within-group pairs of all groups into one statistic (micro average: every counted pair
weighs 1/P).  That is *not* mt-metrics-eval's ``average_by='none'``, which flattens all
(item, system) scores into one row and so also pairs scores *across* items (system A on item
1 against system B on item 2); ours never compares scores of different groups.

ε* (Deutsch et al. 2023, §5, "tie calibration") is the candidate among 0 and every distinct
|Δm| of a counted pair that maximises the averaged acc_eq (or tau_eq); the smallest such ε
wins (``tau_optimization`` keeps the first maximum of its ascending sweep, ``np.nanargmax``).
As there, the |Δm| are sorted once and swept; the reported statistics are then recounted at
ε* with :func:`tie_counts`, so a fixed ``epsilon=ε*`` gives the same numbers bit for bit.

Tie tolerance (``resolution`` > 0, for metrics whose scores are only meaningful to a tolerance,
e.g. float32 model scores).  Which pairs the metric ties is decided by one function,
:func:`metric_ties`: the |Δm| of all counted pairs (every group together) closer than the
resolution to their sorted neighbour are merged into one value, and a pair ties when its
merged |Δm| <= ε + resolution / 2.  The ε* search scores every candidate with that same rule,
the reported statistics are counted with it, and the leaderboard's significance test
(:func:`gec_meta.meta.clusters.perm_pairs_result` with ``resolution_a``/``resolution_b``) ties
its pairs with it too, so its observed difference is the difference of the reported acc_eq.
With ``resolution`` = 0 the rule is plain ``|Δm| <= ε``.
When several candidates reach the same maximum mathematically, ``tau_optimization``'s running
float sum can make a later one look larger by ~1e-16 and pick it; here values within 1e-12 of
the maximum count as equal, so the smallest such ε is chosen deterministically (the maximum
itself agrees with mt-metrics-eval's to rounding).

System level.  :func:`system_pairwise_accuracy` is the pairwise accuracy of Kocmi et al.
(2021, §3.2) with mt-metrics-eval's ``stats.Agreement`` tie rule: a pair agrees when
``sign(Δh) == sign(Δm)``, so a pair tied by both counts as agreement and a pair tied by only
one side as disagreement -- exactly acc_eq of one group at ε = 0.

Kendall variants.  :func:`kendall_variant` is mt-metrics-eval's ``stats.KendallVariants``
(``b``, ``c``, ``23``, ``acc23``; Deutsch et al. 2023 for the last two) on every group from the
same pair counts, averaged over groups as ``AverageCorrelation(average_by='item')`` averages
(groups whose value is NaN -- tau-b/c with every pair tied on one side -- are left out).

Chance level.  :func:`chance_accuracy` is the accuracy a metric that does not look at the
outputs gets on the same pairs: the better of a constant metric and a random ordering (see its
docstring).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TieCounts", "TieCalibrated", "EpsilonSweep", "metric_ties", "tie_counts", "epsilon_sweep",
           "tie_calibrated_accuracy", "calibrate_epsilon", "system_pairwise_agreement",
           "system_pairwise_accuracy", "KENDALL_VARIANTS", "kendall_variant", "chance_accuracy"]

_AVERAGES = ("item", "none")
_OBJECTIVES = ("acc_eq", "tau_eq")


@dataclass(frozen=True)
class TieCounts:
    """Pair counts per group at one ε; every field has shape (G,) and dtype int64.

    A group with fewer than two participating systems has all counts 0.
    """

    concordant: np.ndarray
    discordant: np.ndarray
    ties_human: np.ndarray
    ties_metric: np.ndarray
    ties_both: np.ndarray

    @property
    def pairs(self) -> np.ndarray:
        """N per group, shape (G,)."""
        return self.concordant + self.discordant + self.ties_human + self.ties_metric + self.ties_both


@dataclass(frozen=True)
class TieCalibrated:
    """acc_eq and tau_eq at one ε.

    Attributes:
        acc_eq: (C + T_hm) / N, averaged as ``average`` says.
        tau_eq: (C + T_hm - D - T_h - T_m) / N, averaged the same way, at the same ε.
        epsilon: the ε used (ε* when it was searched).
        pairs: number of counted pairs (all groups).
        groups: number of groups with at least one counted pair.
        average: ``"item"`` (macro over groups) or ``"none"`` (micro over the within-group
            pairs; not mt-metrics-eval's ``average_by='none'``, see the module docstring).
        calibrated: True when ε was searched on this data, False when it was given.
        counts: the per-group counts at ``epsilon``.
    """

    acc_eq: float
    tau_eq: float
    epsilon: float
    pairs: int
    groups: int
    average: str
    calibrated: bool
    counts: TieCounts


@dataclass(frozen=True)
class EpsilonSweep:
    """The averaged statistics at every candidate ε, ascending.

    Attributes:
        thresholds: shape (K,): 0 and every distinct positive |Δm| of a counted pair (merged
            |Δm|, see :func:`metric_ties`, when a resolution was given).
        acc_eq, tau_eq: shape (K,), averaged as ``average`` says, with the metric tying a
            pair as :func:`metric_ties` does at ε = the threshold.
        average: ``"item"`` or ``"none"``.
    """

    thresholds: np.ndarray
    acc_eq: np.ndarray
    tau_eq: np.ndarray
    average: str


@dataclass(frozen=True)
class _Pairs:
    """The counted pairs, flattened: every array has shape (P,)."""

    group: np.ndarray  # int: the group of the pair
    human_tie: np.ndarray  # bool: Δh == 0
    agree: np.ndarray  # bool: sign(Δh) == sign(Δm) and neither is 0
    abs_dm: np.ndarray  # float: |Δm| as computed (not merged)
    num_groups: int
    resolution: float = 0.0  # the metric's tie tolerance (see metric_ties)


def _as_matrices(human, metric) -> tuple[np.ndarray, np.ndarray]:
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    if h.shape != m.shape:
        raise ValueError(f"human and metric must have the same shape (G, S), got human {h.shape} "
                         f"and metric {m.shape}")
    if h.ndim == 1:
        h, m = h[None, :], m[None, :]
    if h.ndim != 2:
        raise ValueError(f"human and metric must have shape (G, S) or (S,), got {h.shape}")
    if np.isinf(h).any() or np.isinf(m).any():
        raise ValueError(f"human and metric scores must be finite or NaN (shape {h.shape})")
    return h, m


def _merge_close(values: np.ndarray, resolution: float) -> np.ndarray:
    """|Δm| values within ``resolution`` of their sorted neighbour made equal (to the largest
    of their run), shape kept.  For metrics whose scores are only meaningful to a tolerance
    (float32 encoders: :attr:`gec_meta.metrics.base.Metric.tie_tolerance`): without it, many
    equal differences (PT metrics' F of small counts: 0.125, 0.25, ...) carry noise of ~1e-6
    that depends on encoder batching, and ε* would separate some of them from the others."""
    if resolution <= 0 or values.size == 0:
        return values
    order = np.argsort(values, kind="stable")
    v = values[order]
    run = np.concatenate([[0], np.cumsum(np.diff(v) > resolution)])  # run id of each sorted value
    last = np.concatenate([np.nonzero(np.diff(run))[0], [len(v) - 1]])  # index of each run's largest
    out = np.empty_like(values)
    out[order] = v[last][run]
    return out


def _check_resolution(resolution: float) -> float:
    resolution = float(resolution)
    if not (resolution >= 0 and np.isfinite(resolution)):  # also rejects NaN
        raise ValueError(f"resolution must be a finite non-negative number, got {resolution}")
    return resolution


def _check_epsilon(epsilon: float) -> float:
    epsilon = float(epsilon)
    if not epsilon >= 0:  # also rejects NaN
        raise ValueError(f"epsilon must be a non-negative number, got {epsilon}")
    return epsilon


def metric_ties(abs_dm, epsilon: float, resolution: float = 0.0) -> np.ndarray:
    """Which pairs the metric ties at ε: the one tie rule of tie-calibrated accuracy
    (Deutsch et al. 2023, §3: a metric tie is |Δm| <= ε), shared by
    :func:`tie_calibrated_accuracy` (its ε* search and its counts) and the pairwise permutation
    test :func:`gec_meta.meta.clusters.perm_pairs_result`.

    * ``resolution`` = 0: ``abs_dm <= epsilon`` (mt-metrics-eval's ``np.abs(x_diffs) <= epsilon``).
    * ``resolution`` > 0 (the metric's tie tolerance): the values of ``abs_dm`` within
      ``resolution`` of their sorted neighbour are merged into one value (the largest of their
      run, :func:`_merge_close`), and a pair ties when its merged value <= ``epsilon +
      resolution / 2``.  Distinct merged values are more than ``resolution`` apart, so an ε
      rounded to the resolution's decimals (an error <= resolution / 2) ties the same pairs as
      the unrounded one.

    The merge runs over all of ``abs_dm`` together, so pass the |Δm| of *every* counted pair of
    one metric (all groups), not group by group: the result for one pair depends on the others.

    Args:
        abs_dm: shape (P,): |m_i - m_j| of every counted pair, finite (any order).
        epsilon: ε >= 0.
        resolution: >= 0.

    Returns:
        bool array of shape (P,): True where the metric ties the pair.

    Raises:
        ValueError: a negative or NaN ε or resolution, a non-1-D or non-finite ``abs_dm``.
    """
    abs_dm = np.asarray(abs_dm, dtype=np.float64)
    if abs_dm.ndim != 1:
        raise ValueError(f"abs_dm must have shape (P,), got {abs_dm.shape}")
    if not np.isfinite(abs_dm).all():
        raise ValueError(f"abs_dm must be finite (shape {abs_dm.shape})")
    epsilon, resolution = _check_epsilon(epsilon), _check_resolution(resolution)
    if resolution > 0:
        return _merge_close(abs_dm, resolution) <= epsilon + resolution / 2
    return abs_dm <= epsilon


def _pairs(human, metric, human_ties: bool, resolution: float = 0.0) -> _Pairs:
    h, m = _as_matrices(human, metric)
    G, S = h.shape
    iu, ju = np.triu_indices(S, k=1)
    dh = h[:, iu] - h[:, ju]  # (G, S(S-1)/2); NaN where a side is missing
    dm = m[:, iu] - m[:, ju]
    counted = ~np.isnan(dh) & ~np.isnan(dm)
    if not human_ties:
        counted &= dh != 0
    if not counted.any():
        raise ValueError(f"no pair of systems with human and metric scores in any group "
                         f"(human and metric of shape {h.shape})")
    group = np.nonzero(counted)[0]  # row-major: the pairs of group 0 first
    dh, dm = dh[counted], dm[counted]
    return _Pairs(group=group, human_tie=dh == 0, agree=np.sign(dh) * np.sign(dm) > 0,
                  abs_dm=np.abs(dm), num_groups=G, resolution=_check_resolution(resolution))


def _counts(p: _Pairs, epsilon: float) -> TieCounts:
    metric_tie = metric_ties(p.abs_dm, epsilon, p.resolution)

    def per_group(mask: np.ndarray) -> np.ndarray:
        return np.bincount(p.group[mask], minlength=p.num_groups).astype(np.int64)

    return TieCounts(
        concordant=per_group(~p.human_tie & ~metric_tie & p.agree),
        discordant=per_group(~p.human_tie & ~metric_tie & ~p.agree),
        ties_human=per_group(p.human_tie & ~metric_tie),
        ties_metric=per_group(~p.human_tie & metric_tie),
        ties_both=per_group(p.human_tie & metric_tie),
    )


def tie_counts(human, metric, epsilon: float = 0.0, human_ties: bool = True) -> TieCounts:
    """C, D, T_h, T_m, T_hm per group at a fixed ε.

    Args:
        human, metric: shape (G, S) (or (S,) for one group); NaN = not judged / no score.
        epsilon: the metric ties when |Δm| <= epsilon (>= 0).
        human_ties: False drops the pairs the humans tied (then T_h = T_hm = 0).

    Returns:
        :class:`TieCounts`, fields of shape (G,).
    """
    return _counts(_pairs(human, metric, human_ties), _check_epsilon(epsilon))


def _average(counts: TieCounts, average: str) -> tuple[float, float]:
    n = counts.pairs
    good = counts.concordant + counts.ties_both
    bad = counts.discordant + counts.ties_human + counts.ties_metric
    if average == "none":
        total = n.sum()
        return float(good.sum() / total), float((good.sum() - bad.sum()) / total)
    has = n > 0
    return float(np.mean(good[has] / n[has])), float(np.mean((good[has] - bad[has]) / n[has]))


def _check_average(average: str) -> None:
    if average not in _AVERAGES:
        raise ValueError(f"average must be one of {_AVERAGES}, got {average!r}")


def _sweep(p: _Pairs, average: str) -> EpsilonSweep:
    # Each pair contributes weight * value, value depending on whether the metric ties it:
    # untied: acc 1 if concordant else 0, tau +1 / -1 (a human-only tie counts -1 in tau);
    # tied: acc 1 if the humans tie else 0, tau +1 / -1 likewise.  The average at ε is the
    # sum over pairs of the untied value plus, for the pairs with |Δm| <= ε, (tied - untied).
    n_per_group = np.bincount(p.group, minlength=p.num_groups)
    if average == "none":
        weight = np.full(len(p.group), 1.0 / len(p.group))
    else:
        weight = 1.0 / (n_per_group[p.group] * np.count_nonzero(n_per_group))
    untied_acc = (~p.human_tie & p.agree).astype(np.float64)
    tied_acc = p.human_tie.astype(np.float64)
    untied_tau, tied_tau = 2 * untied_acc - 1, 2 * tied_acc - 1

    merged = _merge_close(p.abs_dm, p.resolution)  # p.abs_dm itself when resolution = 0
    order = np.argsort(merged, kind="stable")
    sorted_dm = merged[order]
    thresholds = np.unique(np.concatenate([[0.0], sorted_dm]))
    # Number of pairs tied at each threshold t, by metric_ties' rule: those with merged
    # |Δm| <= t + resolution / 2 (|Δm| <= t when resolution = 0), the rule of the final count.
    limits = thresholds + p.resolution / 2 if p.resolution > 0 else thresholds
    tied_upto = np.searchsorted(sorted_dm, limits, side="right")

    def curve(untied: np.ndarray, tied: np.ndarray) -> np.ndarray:
        gain = np.concatenate([[0.0], np.cumsum((weight * (tied - untied))[order])])
        return float(np.sum(weight * untied)) + gain[tied_upto]

    return EpsilonSweep(thresholds=thresholds, acc_eq=curve(untied_acc, tied_acc),
                        tau_eq=curve(untied_tau, tied_tau), average=average)


def epsilon_sweep(human, metric, average: str = "item", human_ties: bool = True,
                  resolution: float = 0.0) -> EpsilonSweep:
    """acc_eq and tau_eq at every candidate ε (``tau_optimization``'s ``thresholds``/``taus``).

    O(P log P) for P counted pairs: the |Δm| are sorted once and the per-pair changes summed
    cumulatively.  Values agree with a recount at each ε (:func:`tie_counts`) to rounding
    (~1e-15 relative).

    Args:
        human, metric: shape (G, S) (or (S,)); NaN = not judged / no score.
        average: ``"item"`` (macro over groups with >= 1 pair) or ``"none"`` (all
            within-group pairs pooled; not mt-metrics-eval's ``average_by='none'``).
        human_ties: False drops the pairs the humans tied.
        resolution: the metric's tie tolerance (see :func:`metric_ties`): candidates are the
            merged |Δm| and each is scored with merged |Δm| <= threshold + resolution / 2,
            as :func:`tie_calibrated_accuracy` counts.

    Returns:
        :class:`EpsilonSweep` with arrays of shape (K,).
    """
    _check_average(average)
    return _sweep(_pairs(human, metric, human_ties, resolution), average)


def _best_epsilon(sweep: EpsilonSweep, objective: str) -> float:
    if objective not in _OBJECTIVES:
        raise ValueError(f"objective must be one of {_OBJECTIVES}, got {objective!r}")
    values = sweep.acc_eq if objective == "acc_eq" else sweep.tau_eq
    # The first (smallest) ε reaching the maximum; the tolerance keeps rounding in the
    # cumulative sums from choosing a larger ε whose value is mathematically equal.
    best = np.nonzero(values >= values.max() - 1e-12)[0][0]
    return float(sweep.thresholds[best])


def tie_calibrated_accuracy(human, metric, epsilon: float | None = None, average: str = "item",
                            human_ties: bool = True, objective: str = "acc_eq",
                            resolution: float = 0.0) -> TieCalibrated:
    """acc_eq and tau_eq at a fixed ε, or at the ε* that maximises ``objective``.

    Args:
        human, metric: shape (G, S) (or (S,) for one group), higher = better; NaN in ``human``
            = not judged in that group, NaN in ``metric`` = no score; such a system takes no
            part in that group's pairs.
        epsilon: None searches ε* on this data (Deutsch et al. 2023, §5); a number (e.g. from
            :func:`calibrate_epsilon` on a dev set) is used as given.
        average: ``"item"`` = macro over groups with at least one pair (mt-metrics-eval's
            ``average_by='item'``), ``"none"`` = micro over the within-group pairs of all
            groups pooled.  ``"none"`` is *not* mt-metrics-eval's ``average_by='none'``: that
            flattens all (item, system) scores into one row and also pairs scores across items.
        human_ties: False drops the pairs the humans tied (acc_eq at ε = 0 is then
            C / (C + D + T_m), WMT's Kendall-like accuracy).
        objective: ``"acc_eq"`` (the paper's choice) or ``"tau_eq"``: what ε* maximises.
        resolution: the metric's tie tolerance (0 = exact; float32 model scores): |Δm| values
            closer than this to each other count as one value and a pair ties when its merged
            |Δm| <= ε + resolution / 2 (:func:`metric_ties`), both in the ε* search and in the
            reported counts, so the reported ``objective`` is the searched maximum.  ε* is
            then reported rounded to the resolution's decimals; passing it back as a fixed
            ``epsilon`` (same resolution) gives the same counts.

    Returns:
        :class:`TieCalibrated`.

    Raises:
        ValueError: shapes differ, a negative ε, or no countable pair at all.
    """
    _check_average(average)
    p = _pairs(human, metric, human_ties, resolution)
    calibrated = epsilon is None
    eps = _best_epsilon(_sweep(p, average), objective) if calibrated else _check_epsilon(epsilon)
    if p.resolution > 0 and calibrated:
        # The noise below the resolution is not part of ε*: it is reported rounded to the
        # resolution's decimals (an error <= resolution / 2).  metric_ties ties merged |Δm| <=
        # ε + resolution / 2: the same pairs as at the unrounded ε* (the rule the sweep scored
        # it with; runs of merged |Δm| are more than the resolution apart), also when the
        # rounded value is given back as a fixed ε.
        eps = round(eps, max(0, -int(np.floor(np.log10(p.resolution)))))
    counts = _counts(p, eps)
    acc, tau = _average(counts, average)
    n = counts.pairs
    return TieCalibrated(acc_eq=acc, tau_eq=tau, epsilon=eps, pairs=int(n.sum()),
                         groups=int(np.count_nonzero(n)), average=average, calibrated=calibrated,
                         counts=counts)


def calibrate_epsilon(human, metric, average: str = "item", human_ties: bool = True,
                      objective: str = "acc_eq", resolution: float = 0.0) -> float:
    """ε* on a development set, to pass as the fixed ``epsilon`` on a test set.

    Args: as :func:`tie_calibrated_accuracy`.

    Returns:
        the smallest candidate ε maximising the averaged ``objective`` (as
        :func:`tie_calibrated_accuracy` reports it).
    """
    return tie_calibrated_accuracy(human, metric, None, average, human_ties, objective, resolution).epsilon


def system_pairwise_agreement(human, metric) -> tuple[int, int]:
    """Agreeing and counted system pairs (mt-metrics-eval ``stats.Agreement``).

    A pair counts when both systems have a human score; it agrees when
    ``sign(Δh) == sign(Δm)`` (both tied agrees; one side tied disagrees).  To pool several
    sets of systems (mt-metrics-eval's accuracy over language pairs, Kocmi et al. 2021), sum
    the two numbers over the sets.

    Args:
        human, metric: shape (S,); NaN in ``human`` = system not judged.

    Returns:
        ``(agree, pairs)``.

    Raises:
        ValueError: shapes differ, not 1-D, a judged system without a metric score, or fewer
            than two judged systems.
    """
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    if h.shape != m.shape or h.ndim != 1:
        raise ValueError(f"system-level human and metric must both have shape (S,), got human "
                         f"{h.shape} and metric {m.shape}")
    if np.isnan(m[~np.isnan(h)]).any():
        raise ValueError(f"a judged system has no metric score (NaN) among the {m.shape[0]} systems")
    counts = tie_counts(h, m, epsilon=0.0)
    return int(counts.concordant[0] + counts.ties_both[0]), int(counts.pairs[0])


def system_pairwise_accuracy(human, metric) -> float:
    """Pairwise accuracy of system scores (Kocmi et al. 2021; ``stats.Agreement`` ties).

    Args:
        human, metric: shape (S,); NaN in ``human`` = system not judged.

    Returns:
        agreeing pairs / counted pairs (see :func:`system_pairwise_agreement`).
    """
    agree, pairs = system_pairwise_agreement(human, metric)
    return agree / pairs


#: mt-metrics-eval ``stats.KendallVariants``' variants (``meta_eval.kendall_variants``).
KENDALL_VARIANTS = ("b", "c", "23", "acc23")


def kendall_variant(human, metric, variant: str, epsilon: float = 0.0) -> float:
    """A Kendall variant of ``stats.KendallVariants`` averaged over groups (``average_by='item'``).

    Per group, from the pair counts of :func:`tie_counts` (metric tie: |Δm| <= ε; human tie:
    Δh == 0; Tx = T_m + T_hm, Ty = T_h + T_hm, N pairs, n systems taking part):

    * ``b``: (C - D) / sqrt((N - Tx)(N - Ty)); NaN when Tx == N or Ty == N;
    * ``c``: 2 (C - D) / (n^2 (k - 1) / k), k = min(distinct metric values, distinct human
      values) of the group (ε must be 0, as there); NaN when Tx == N or Ty == N;
    * ``23``: (C + T_hm - D - T_h - T_m) / N (= ``tau_eq`` at this ε);
    * ``acc23``: (C + T_hm) / N (= ``acc_eq`` at this ε).

    The average is the plain mean over the groups with at least two systems and a non-NaN value
    (``AverageCorrelation`` drops NaN values and rows of fewer than two scores).

    Args:
        human, metric: shape (G, S) (or (S,)), NaN = not judged / no score (the system takes no
            part in the group).
        variant: one of :data:`KENDALL_VARIANTS`.
        epsilon: metric-tie threshold (>= 0; 0 for ``c``).

    Returns:
        the average; NaN when no group has a value.
    """
    if variant not in KENDALL_VARIANTS:
        raise ValueError(f"Kendall variant must be one of {list(KENDALL_VARIANTS)}, got {variant!r}")
    eps = _check_epsilon(epsilon)
    if variant == "c" and eps > 0:
        raise ValueError("tau-c is not defined with a metric-tie threshold epsilon > 0 (as mt-metrics-eval)")
    h, m = _as_matrices(human, metric)
    c = _counts(_pairs(h, m, human_ties=True), eps)
    C, D = c.concordant.astype(np.float64), c.discordant.astype(np.float64)
    n_pairs = c.pairs.astype(np.float64)
    tx, ty = (c.ties_metric + c.ties_both).astype(np.float64), (c.ties_human + c.ties_both).astype(np.float64)
    has = n_pairs > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        if variant == "acc23":
            values = (C + c.ties_both) / n_pairs
        elif variant == "23":
            values = (C + c.ties_both - D - c.ties_human - c.ties_metric) / n_pairs
        else:
            degenerate = (tx == n_pairs) | (ty == n_pairs)
            if variant == "b":
                values = (C - D) / np.sqrt(n_pairs - tx) / np.sqrt(n_pairs - ty)
            else:
                both = ~np.isnan(h) & ~np.isnan(m)
                size = both.sum(axis=1).astype(np.float64)
                k = np.array([min(len(set(m[g, both[g]])), len(set(h[g, both[g]]))) for g in range(len(h))],
                             dtype=np.float64)
                values = 2 * (C - D) / (size ** 2 * (k - 1) / k)
            values = np.where(degenerate, np.nan, values)
    values = values[has & ~np.isnan(values)]
    return float(np.mean(values)) if values.size else float("nan")


def chance_accuracy(human, metric=None, average: str = "item") -> float:
    """The chance level of acc_eq (at any ε, ε* included), of acc23 and of system-level
    pairwise accuracy on the same pairs.

    A metric that does not look at the outputs (i.i.d. scores of any distribution) orders every
    counted pair at random and ties it with one probability q, the same for every pair.  Its
    expected accuracy is linear in q: (1 - q) R + q T, where R = (untied by the humans) / 2N is
    what a tie-free random order gets (every pair a coin flip; a human tie is never matched)
    and T = (tied by the humans) / N is what a constant metric gets (every pair a metric tie),
    each averaged over groups as the statistic averages.  The best such metric therefore gets
    max(R, T), and so does a random metric under tie calibration (ε* is free to choose q):
    that maximum is the chance level.  mt-metrics-eval's issue #14 ("Random chance performance
    for Pairwise Accuracy in 'Ties Matter'") asks for it and has no answer; WMT23 ranks metrics
    against a random baseline metric (``Random-sysname``, ``meta_info.py``): this is its
    expected value, exactly, without sampling.  With no human ties it is 1/2.

    Args:
        human: shape (G, S) (or (S,) for one group: system level); NaN = not judged.
        metric: shape of ``human`` or None: only its NaN cells (no score) matter -- they take
            the system out of the group's pairs, as in the statistic itself.
        average: ``"item"`` (mean over groups) or ``"none"`` (pooled pairs).

    Returns:
        max(R, T).
    """
    _check_average(average)
    h = np.asarray(human, dtype=np.float64)
    constant = np.zeros_like(h) if metric is None else np.where(np.isnan(np.asarray(metric, dtype=np.float64)),
                                                                np.nan, 0.0)
    counts = tie_counts(h, constant, 0.0)  # a constant metric: T_hm = human ties, T_m = the rest
    n = counts.pairs
    untied = counts.ties_metric  # pairs the humans did not tie
    if average == "none":
        random_order = float(untied.sum() / (2 * n.sum()))
    else:
        has = n > 0
        random_order = float(np.mean(untied[has] / (2 * n[has])))
    return max(random_order, _average(counts, average)[0])
