"""Unbalanced optimal transport between hypothesis and reference edit vectors (Goto et al.
2025, §3.2, Eqs. 4 and 7-9), solved with POT's stabilised unbalanced Sinkhorn.

Masses (§3.2.2): ``norm`` (default) puts a_i = ||V_i||_2 on edit i, an implicit edit weight;
``uniform`` puts 1/E on each of the E edits of a set (Table 2 "Uniform"; the official code's
``mass='uniform'``).

Costs (§3.2.2): ``euclidean`` (default) C_ij = ||V^hyp_i - V^ref_j||_2, *not* squared (what
``ot.dist(..., metric='euclidean')`` returns); ``cosine`` C_ij = 1 - cos(V^hyp_i, V^ref_j)
(Table 2 "Cosine similarity"; the official code passes ``metric='cosine'`` to ``ot.dist``,
i.e. the cosine *distance*).  A zero vector has no direction; its cosine distance is defined
as 1 (orthogonal) instead of scipy's NaN.

Solver (§4.1 "UOT-ERRANT Settings"): ``ot.unbalanced.sinkhorn_stabilized_unbalanced`` with
entropic weight ``reg`` = epsilon = 0.1 (fixed in the paper, after Arase et al. 2023) and
``reg_m`` = lambda_1 = lambda_2 (0.1 in the paper, chosen on GJG15).  ``reg_type`` is always
passed explicitly: POT 0.9.5 (the version the paper cites) defaults to ``"kl"`` (the entropic
term is KL(P || a b^T)), earlier versions to ``"entropy"``; passing it keeps results
independent of the installed POT.  ``max_iter`` = 1000 and ``stop_thr`` = 1e-6 are POT's
defaults (``numItermax``, ``stopThr``), which the official code uses.

Edge cases:

* an empty side (no hypothesis edits or no reference edits): nothing is transported,
  T has shape (H, G) with H or G = 0, TP = 0, FP = sum(a), FN = sum(b) (as the official code);
* edits of zero mass (a zero edit vector under ``mass: norm``, e.g. a case-only edit under an
  uncased encoder, whose two sentences tokenise identically, or an edit past the encoder's
  ``max_length`` wordpieces, where both sentences are truncated alike) are taken out of the problem and
  get an all-zero row/column of T.  This is exactly what the KL-relaxed problem gives them
  (a positive row sum against a_i = 0 has infinite KL cost).  **Here we differ from the
  official code on purpose**: it passes the zero mass to POT, whose ``kl`` entropic term takes
  log(a b^T) = -inf; e.g. for a zero-mass reference edit column j of the kernel is 0, K^T u has a
  0, the stabilised Sinkhorn stops with "numerical errors at iteration 0" and returns the
  un-iterated plan a b^T exp(-C / reg) (tests/test_uot_float32.py works one out by hand).
  Such a plan is not a solution of Eq. 4 (issue 19 reports, with MiniLM on SEEDA, TP 4,550
  and sentence F 496 on one sentence, 139 of 11,730 problems); dropping the edit is.
  Without zero-mass edits the two agree;
* TP = sum T may exceed sum a (UOT can create mass); FP = sum(a) - TP is then negative.  The
  paper's Eqs. 8-9 are kept as they are (so is the official code); no clipping.

Precision (``precision``): ``float64`` (default) computes masses, costs and the Sinkhorn in
float64 from the float32 edit vectors.  The official code works in float32 throughout (its
encoder returns float32 arrays; ``np.linalg.norm``, ``ot.dist`` and POT's Sinkhorn keep that
dtype), so its sentence F differs from float64 by a few 1e-3 (MiniLM, SEEDA: up to 2.6e-3 in
issue 19; our two precisions differ by up to 5.3e-3 on SEEDA +Fluency's 14 x 391): its own noise
floor.  ``float32`` reproduces that arithmetic for cross-checks: float32 norms
(``np.linalg.norm``), ``ot.dist`` in float32 (POT's ||x||^2 + ||y||^2 - 2 x.y form; ``cosine``
goes through scipy in float64 in the official code, so ours stays float64 there), POT called on
the float32 arrays, and TP / FP / FN summed per edit from float32 row and column sums as the
official ``score_base`` does.  Uniform masses are float64 in both (``np.full(E, 1 / E)``).
Given the same edit vectors the float32 plan is the official one bit for bit; end to end the
match is as close as the embeddings: the largest float32 effect, the cancellation noise of an
edit's cost to an identical reference edit (exactly 0 in float64), depends on the last bits of
the vectors, and our encoder does not pad to 128 tokens as the official code does.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from gec_meta.fields import check_fields, integer, valid
from gec_meta.errors import ConfigError

MASSES = ("norm", "uniform")
COSTS = ("euclidean", "cosine")
REG_TYPES = ("kl", "entropy")
PRECISIONS = ("float64", "float32")
#: The most Sinkhorn iterations per transport problem (``metric.max_iter``; POT's default 1000):
#: each iteration costs the same, so the bound caps the work of one plan.
MAX_ITER = 100_000


@dataclass(frozen=True)
class UOTSettings:
    """Everything that changes a transport plan once the edit vectors are fixed.

    Fields:
        mass: ``norm`` | ``uniform`` (§3.2.2; Table 2).
        cost: ``euclidean`` | ``cosine`` (§3.2.2; Table 2).
        reg: entropic weight epsilon of Eq. 4 (0.1, §4.1).
        reg_m: marginal relaxation lambda_1 = lambda_2 of Eq. 4 (0.1, chosen on GJG15, §4.1).
        reg_type: POT's entropic term, ``kl`` (POT 0.9.5 default, used by the paper) or
            ``entropy``.
        max_iter, stop_thr: POT's ``numItermax`` / ``stopThr`` (its defaults 1000 / 1e-6).
        precision: ``float64`` (default) | ``float32`` (the official code's arithmetic, for
            cross-checks; see the module docstring).
    """

    mass: str = "norm"
    cost: str = "euclidean"
    reg: float = 0.1
    reg_m: float = 0.1
    reg_type: str = "kl"
    max_iter: int = field(default=1000, metadata=valid(integer(1, hi=MAX_ITER)))
    stop_thr: float = 1e-6
    precision: str = "float64"

    def __post_init__(self):
        if self.mass not in MASSES:
            raise ConfigError(f"metric.mass must be one of {MASSES}, got {self.mass!r}")
        if self.cost not in COSTS:
            raise ConfigError(f"metric.cost must be one of {COSTS}, got {self.cost!r}")
        if self.reg_type not in REG_TYPES:
            raise ConfigError(f"metric.reg_type must be one of {REG_TYPES}, got {self.reg_type!r}")
        if not self.reg > 0:
            raise ConfigError(f"metric.reg (epsilon) must be > 0, got {self.reg}")
        if not self.reg_m > 0:
            raise ConfigError(f"metric.reg_m (lambda) must be > 0, got {self.reg_m}")
        check_fields(self, "metric")
        if self.precision not in PRECISIONS:
            raise ConfigError(f"metric.precision must be one of {PRECISIONS}, got {self.precision!r}")


def edit_masses(vectors: np.ndarray, mass: str, precision: str = "float64") -> np.ndarray:
    """Mass of every edit.

    Args:
        vectors: shape (E, D), edit vectors of one edit set.
        mass: ``norm`` (L2 norm, §3.2.2) or ``uniform`` (1/E).
        precision: ``float64`` or ``float32`` (norms of the float32 vectors in float32, the
            official code's ``np.linalg.norm``; uniform masses stay float64, as there).

    Returns:
        array of shape (E,), float64 (float32 for ``norm`` in ``float32``).
    """
    if mass == "norm" and precision == "float32":
        return np.linalg.norm(np.asarray(vectors, dtype=np.float32), axis=-1)
    v = np.asarray(vectors, dtype=np.float64)
    E = v.shape[0]
    if mass == "norm":
        return np.sqrt(np.einsum("ed,ed->e", v, v))
    if mass == "uniform":
        return np.full(E, 1.0 / E) if E else np.zeros(0)
    raise ConfigError(f"metric.mass must be one of {MASSES}, got {mass!r}")


def cost_matrix(hyp: np.ndarray, ref: np.ndarray, cost: str, precision: str = "float64") -> np.ndarray:
    """Transport cost between hypothesis and reference edit vectors.

    Args:
        hyp: shape (H, D).
        ref: shape (G, D).
        cost: ``euclidean`` (non-squared L2 distance) or ``cosine`` (1 - cosine; 1 for a zero
            vector).
        precision: ``float64`` or ``float32`` (``euclidean`` by ``ot.dist`` on the float32
            vectors, as the official code; ``cosine`` is float64 in both).

    Returns:
        array of shape (H, G), float64 (float32 for ``euclidean`` in ``float32``).
    """
    from scipy.spatial.distance import cdist

    if cost == "euclidean" and precision == "float32" and len(hyp) and len(ref):
        import ot

        # Copies: ot.dist zeroes the diagonal when both arguments are one object, which the
        # official code's two np.array(...) never are (identical edit sets share one array here).
        return ot.dist(np.array(hyp, dtype=np.float32), np.array(ref, dtype=np.float32), metric="euclidean")
    h = np.asarray(hyp, dtype=np.float64)
    r = np.asarray(ref, dtype=np.float64)
    if h.shape[0] == 0 or r.shape[0] == 0:
        return np.zeros((h.shape[0], r.shape[0]))
    if cost == "euclidean":
        return cdist(h, r, "euclidean")
    if cost == "cosine":
        hn = np.linalg.norm(h, axis=1)
        rn = np.linalg.norm(r, axis=1)
        denom = np.outer(hn, rn)
        dots = h @ r.T
        with np.errstate(divide="ignore", invalid="ignore"):
            cos = np.where(denom > 0, dots / np.where(denom > 0, denom, 1.0), 0.0)
        return 1.0 - np.clip(cos, -1.0, 1.0)
    raise ConfigError(f"metric.cost must be one of {COSTS}, got {cost!r}")


class SolverStats:
    """Counters of :func:`transport_plan` calls (read by the bench and the logs)."""

    calls = 0
    not_converged = 0


def transport_plan(a: np.ndarray, b: np.ndarray, C: np.ndarray, settings: UOTSettings) -> np.ndarray:
    """The UOT plan T = UOT(a, b, C) of Eq. 4.

    Args:
        a: shape (H,), hypothesis masses (>= 0).
        b: shape (G,), reference masses (>= 0).
        C: shape (H, G), costs.
        settings: solver settings (reg = epsilon, reg_m = lambda, reg_type, iterations).

    Returns:
        array of shape (H, G); all-zero rows/columns for zero-mass edits, shape (H, 0) or
        (0, G) when a side is empty (see the module docstring).  float64; in ``float32``
        precision a, b and C go to POT as they are and T has POT's result dtype (float32 for
        float32 inputs).
    """
    import ot

    if settings.precision == "float32":
        a, b, C = np.asarray(a), np.asarray(b), np.asarray(C)
        dtype = np.result_type(a, b, C)
    else:
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
        C = np.asarray(C, dtype=np.float64)
        dtype = np.float64
    T = np.zeros((a.shape[0], b.shape[0]), dtype=dtype)
    rows = np.flatnonzero(a > 0)
    cols = np.flatnonzero(b > 0)
    if rows.size == 0 or cols.size == 0:
        return T
    SolverStats.calls += 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sub = ot.unbalanced.sinkhorn_stabilized_unbalanced(
            a[rows], b[cols], np.ascontiguousarray(C[np.ix_(rows, cols)]),
            reg=settings.reg, reg_m=settings.reg_m, reg_type=settings.reg_type,
            numItermax=settings.max_iter, stopThr=settings.stop_thr,
        )
    if any("converge" in str(w.message) or "Numerical" in str(w.message) for w in caught):
        SolverStats.not_converged += 1
    T[np.ix_(rows, cols)] = sub
    return T


def transport_counts(T: np.ndarray, a: np.ndarray, b: np.ndarray,
                     precision: str = "float64") -> tuple[float, float, float]:
    """(Score_TP, Score_FP, Score_FN) of a plan: Eqs. 7, 8 and 9.

    Args:
        T: shape (H, G).
        a: shape (H,).
        b: shape (G,).
        precision: ``float64`` (sums of the whole arrays) or ``float32`` (the official
            ``score_base``: row sums t_i and column sums t_j in T's dtype, then
            TP = sum_i t_i, FP = sum_i (a_i - t_i), FN = sum_j (b_j - t_j), each term
            rounded in that dtype and accumulated as Python floats).
    """
    if precision == "float32":
        rows, cols = T.sum(axis=1), T.sum(axis=0)  # zeros when a side is empty
        tp = sum(float(t) for t in rows)
        return tp, sum(float(x) for x in a - rows), sum(float(x) for x in b - cols)
    tp = float(np.sum(T))
    return tp, float(np.sum(a)) - tp, float(np.sum(b)) - tp


def transport_plans_batched(problems, settings: UOTSettings, tau: float = 1e5) -> list[np.ndarray]:
    """Many UOT plans at once: POT's ``sinkhorn_stabilized_unbalanced`` iteration (POT 0.9.5,
    non-``n_hists`` branch) run on stacks of same-shape problems.

    Same updates, per-problem stopping rule (error checked at iteration 0 and every 10th
    non-absorbing iteration), per-problem absorption (``tau`` = POT's 1e5), per-problem
    numerical-error fallback and final plan formula as POT; only the Python loop is shared by
    all problems of one (H, G) shape, so a lambda sweep pays numpy's per-call overhead once per
    shape instead of once per problem.  Equal to :func:`transport_plan` up to float rounding of
    the matrix products (tests check 1e-9 relative).

    Args:
        problems: shape (P,) of (a (H,), b (G,), C (H, G)).
        settings: ``reg``, ``reg_m``, ``reg_type``, ``max_iter``, ``stop_thr``.

    Returns:
        shape (P,): plans of shape (H, G) (zero rows/columns for zero-mass edits, as
        :func:`transport_plan`).
    """
    reg, lam = float(settings.reg), float(settings.reg_m)
    fi = lam / (lam + reg)  # POT's fi_1 = fi_2 = reg_m / (reg_m + reg)
    out: list[np.ndarray] = []
    # (H', G') after dropping zero-mass edits -> members (problem index, rows, cols, a, b, C)
    groups: dict[tuple[int, int], list] = {}
    for p, (a, b, C) in enumerate(problems):
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
        out.append(np.zeros((a.shape[0], b.shape[0])))
        rows, cols = np.flatnonzero(a > 0), np.flatnonzero(b > 0)
        if rows.size == 0 or cols.size == 0:
            continue
        sub = np.asarray(C, dtype=np.float64)[np.ix_(rows, cols)]
        groups.setdefault((rows.size, cols.size), []).append((p, rows, cols, a[rows], b[cols], sub))
    for members in groups.values():
        plans, bad = _stabilized_batch(
            np.stack([m[3] for m in members]), np.stack([m[4] for m in members]),
            np.stack([m[5] for m in members]), reg, fi, lam, settings, tau,
        )
        SolverStats.calls += len(members)
        SolverStats.not_converged += int(bad.sum())
        for k, (p, rows, cols, *_rest) in enumerate(members):
            out[p][np.ix_(rows, cols)] = plans[k]
    return out


def _stabilized_batch(a, b, M, reg, fi, lam, settings, tau):
    """POT's stabilised unbalanced Sinkhorn on a stack: a (B, H), b (B, G), M (B, H, G).

    Returns (plans (B, H, G), not_converged (B,) bool)."""
    Bn, H, G = M.shape
    if settings.reg_type == "kl":
        c = a[:, :, None] * b[:, None, :]
    else:
        c = np.ones_like(M)
    M0 = M - reg * np.log(c)
    K = np.exp(-M0 / reg)
    u = np.ones((Bn, H))
    v = np.ones((Bn, G))
    alpha = np.zeros((Bn, H))
    beta = np.zeros((Bn, G))
    err = np.ones(Bn)
    bad = np.zeros(Bn, dtype=bool)
    active = np.arange(Bn)
    cpt = 0
    damp = lam + reg
    while active.size and cpt < settings.max_iter:
        ua, va, Ka = u[active], v[active], K[active]
        al, be = alpha[active], beta[active]
        uprev, vprev = ua, va
        Kv = np.einsum("bhg,bg->bh", Ka, va)
        ua = (a[active] / (Kv + 1e-16)) ** fi * np.exp(-al / damp)
        Ktu = np.einsum("bhg,bh->bg", Ka, ua)
        va = (b[active] / (Ktu + 1e-16)) ** fi * np.exp(-be / damp)
        absorbing = (ua > tau).any(axis=1) | (va > tau).any(axis=1)
        if absorbing.any():
            j = np.flatnonzero(absorbing)
            al = al.copy()
            be = be.copy()
            al[j] += reg * np.log(ua[j].max(axis=1))[:, None]
            be[j] += reg * np.log(va[j].max(axis=1))[:, None]
            Ka = Ka.copy()
            Ka[j] = np.exp((al[j][:, :, None] + be[j][:, None, :] - M0[active[j]]) / reg)
            va = va.copy()
            va[j] = 1.0
            K[active[j]] = Ka[j]
            alpha[active] = al
            beta[active] = be
        numerr = ((Ktu == 0).any(axis=1) | ~np.isfinite(ua).all(axis=1) | ~np.isfinite(va).all(axis=1))
        ua = np.where(numerr[:, None], uprev, ua)
        va = np.where(numerr[:, None], vprev, va)
        u[active] = ua
        v[active] = va
        check = np.full(active.size, cpt == 0) | ((cpt % 10 == 0) & ~absorbing)
        if check.any():
            num = np.abs(ua - uprev).max(axis=1)
            den = np.maximum(np.maximum(np.abs(ua).max(axis=1), np.abs(uprev).max(axis=1)), 1.0)
            e = err[active]
            e = np.where(check & ~numerr, num / den, e)
            err[active] = e
        bad[active[numerr]] = True
        done = numerr | (err[active] <= settings.stop_thr)
        active = active[~done]
        cpt += 1
    bad |= err > settings.stop_thr
    logu = alpha / reg + np.log(u)
    logv = beta / reg + np.log(v)
    plans = np.exp(logu[:, :, None] + logv[:, None, :] - M0 / reg)
    return plans, bad
