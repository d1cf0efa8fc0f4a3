"""GLEU (GLEU+): Napoles et al. (ACL 2015) "Ground truth for grammatical error correction
metrics", as revised in Napoles et al. (2016) "GLEU without tuning" (arXiv:1605.02592).

For n = 1..4 the modified precision of a hypothesis H against source S and reference R is

    p_n = ( sum_g min(h_g, r_g)  -  sum_g max(0, min(h_g, s_g) - min(h_g, r_g)) ) / sum_g h_g

(h_g, s_g, r_g: multiplicities of the n-gram g; the subtracted term counts the hypothesis
n-grams that are in S but not in R, S \\ R taken as a multiset, Napoles et al. 2016), and

    GLEU = BP * exp( (1/4) * sum_n log p_n ),   BP = exp(min(0, 1 - |R| / |H|))

with the numerators, denominators and lengths summed over the corpus (BLEU-style).  With
several references the official script (cnap/gec-ranking ``scripts/compute_gleu``) samples,
in each of ``--iter`` = 500 iterations, one reference per sentence; iteration j reseeds
Python's ``random`` with ``j * 101`` and draws ``random.randint(0, R - 1)`` for sentence
0, 1, ..., N-1 in order; the score is the mean of the iterations' corpus GLEU.  Sentence-level
GLEU is the mean over the references of the per-reference GLEU (the script's ``--debug``
output; gec-metrics 0.1.1 ``GLEU.score_sentence``).

Two variants (``variant``):

``"official"`` reproduces the arithmetic of cnap/gec-ranking ``scripts/gleu.py`` (2 May 2016
"multiple references" update + 6 Sep 2017 brevity-penalty fix) and ``compute_gleu``,
including their quirks:

  Q1. **S \\ R ignores counts.**  ``get_ngram_diff`` removes an n-gram from S entirely as
      soon as it occurs in R at all, so the penalty is ``min(h_g, s_g)`` if ``r_g == 0`` and 0
      otherwise.  A hypothesis that keeps 2 copies of an n-gram that the reference reduced
      from 2 to 1 copies is not penalised.  *corrected*: the multiset penalty
      ``max(0, min(h_g, s_g) - min(h_g, r_g))`` of Napoles et al. (2016) (gec-metrics
      ``GLEU``; the same numbers as its ``GLEUOfficial`` "TK > 0 and UD > 0" note).
  Q2. **Per-sentence clipping.**  Each sentence's numerator of each order is clipped at 0
      (``max([..., 0])``) before being summed over the corpus, so a sentence whose
      penalties exceed its matches cannot pull the corpus numerator down.  *corrected*: the
      signed numerators are summed; only the corpus (or sentence) precision is floored, via
      the rule "any p_n <= 0 gives GLEU 0".
  Q3. **Zero statistics give 0.**  ``gleu()`` returns 0 whenever *any* statistic is 0: a
      zero numerator, but also a zero denominator (no n-grams of that order, i.e. a
      hypothesis shorter than n) or a zero length.  *corrected*: gec-metrics' precision
      convention, p_n = 1 when the hypothesis has no wrong n-gram of order n (numerator ==
      denominator, including 0 / 0), so a 3-token hypothesis equal to its reference gets 1.
  Q4. **Order fixed at 4.**  ``GLEU.__init__`` sets ``self.order = 4`` whatever ``-n`` says
      and ``gleu()`` divides by 4.  The official variant therefore only accepts
      ``max_n == 4`` (ValueError otherwise); *corrected* uses ``max_n`` and divides by it.
  Q5. **Python 2 RNG.**  ``compute_gleu`` is a Python 2 script; Python 2's
      ``randint(0, R-1)`` is ``int(random() * R)``, whereas Python 3 (which gec-metrics runs
      under) draws ``getrandbits(R.bit_length())`` with rejection.  Same seeds, different
      references.  Field ``sampling``: ``"python2"`` (default of *official*) or ``"python3"``
      (default of *corrected*, reproduces gec-metrics 0.1.1 and its published correlations).
      Both are re-implemented on a local ``random.Random`` so the result does not depend on
      the running interpreter; the global RNG is never touched.
  Q6. **Smoothed sentence scores.**  In ``--debug`` mode the script prints as sentence score
      the mean over references of ``gleu(stats, smooth=True)``, which first replaces every
      zero statistic by 1.  *corrected*: no smoothing (gec-metrics ``GLEU.score_sentence``),
      with Q2/Q3 fixed as above.

  Not reproduced: the pre-2017 "inverse brevity penalty" (lengths swapped) and the
  pre-May-2016 single-sample/closest-length variants of the script.

``"corrected"`` fixes Q1-Q6 as described and equals gec-metrics 0.1.1 ``GLEU`` (the class
behind its ``'gleu'`` id and README correlations) with one exception: gec-metrics measures
lengths with ``len(x.split(' '))``, so an *empty* hypothesis or reference has length 1
there and 0 here (the official script also says 0).  Non-empty normalised strings agree.
On the SEEDA subset (one empty annotator-1 reference, one empty REF-F output) this moves
corpus scores by at most 2.3e-5 and one sentence score by 7.7e-8; the published
correlations are reproduced to 4 decimals.  ``tokens="space"`` (with the dataset's
whitespace kept, ``dataset.whitespace=rstrip``) tokenises as gec-metrics does and gives its
numbers to the last digit (bench/RESULTS.md).

Statistics (shape (S, N, R, 2 * max_n + 2)), last axis in the official script's order::

    (hyp_len, ref_len, num_1, den_1, ..., num_max_n, den_max_n)

``num_n`` is the numerator above (official: Q1 penalty, clipped at 0 per sentence;
corrected: multiset penalty, signed) and ``den_n = max(hyp_len + 1 - n, 0)``.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from dataclasses import dataclass, field
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.errors import GecMetaError
from gec_meta.fields import integer, valid
from gec_meta.metrics.base import ANY_LANGUAGE, Metric, present_mask
from gec_meta.metrics.ngram.green import MAX_NGRAM_ORDER, TOKENS, NgramCache, dedupe_triples, validate_inputs

#: Iteration j of compute_gleu reseeds with j * 101 (cnap/gec-ranking scripts/compute_gleu).
OFFICIAL_SEED_STRIDE = 101
#: Number of sampling iterations of compute_gleu's ``--iter`` default (Napoles et al. 2016).
OFFICIAL_ITERATIONS = 500
#: The most sampling iterations accepted (``metric.iterations``): 20x the official 500; the
#: corpus score holds an (iterations, N x R) one-hot matrix (0.2 GB at the bound on GJG15).
MAX_ITERATIONS = 10_000
#: Order of the official script (``self.order = 4``; BLEU's N = 4).
OFFICIAL_ORDER = 4

_VARIANTS = ("official", "corrected")
_SAMPLINGS = ("python2", "python3")


def _randbelow_py3(rng: random.Random, n: int) -> int:
    """Python 3's ``Random._randbelow_with_getrandbits(n)`` (what ``randint(0, n-1)`` calls)."""
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


@functools.lru_cache(maxsize=16)
def sample_reference_indices(
    iterations: int, num_sentences: int, num_references: int, seed: int, sampling: str
) -> np.ndarray:
    """Reference drawn for every (iteration, sentence), as compute_gleu draws it.

    Iteration j uses a fresh ``random.Random(seed + 101 * j)`` (seed = 0: the official
    ``random.seed(j * 101)``) and draws one index per sentence, in sentence order.

    Args:
        iterations, num_sentences, num_references: I, N, R.
        seed: offset added to every iteration's seed (0 reproduces the script).
        sampling: ``"python2"`` (``int(random() * R)``) or ``"python3"`` (getrandbits with
            rejection, CPython 3's ``randint``).

    Returns:
        read-only int64 array of shape (I, N) with values in [0, R).
    """
    if sampling not in _SAMPLINGS:
        raise ValueError(f"sampling must be one of {_SAMPLINGS}, got {sampling!r}")
    # Drawing I x N numbers with Python's RNG takes ~0.2 s for SEEDA; the draws depend only
    # on these five integers, so they are cached on disk like any other stage.
    from gec_meta import cache
    from gec_meta.cache.code import computing_code_version

    code = computing_code_version(__name__)  # the drawing code's
    key = f"gleu-reference-draws|v1|code:{code}|{iterations}|{num_sentences}|{num_references}|{seed}|{sampling}"
    out = cache.load_array(key, kind="draws")
    if out is not None and out.shape == (iterations, num_sentences):
        out.setflags(write=False)
        return out
    out = np.zeros((iterations, num_sentences), dtype=np.int64)
    if num_references > 1:
        for j in range(iterations):
            rng = random.Random(seed + OFFICIAL_SEED_STRIDE * j)
            if sampling == "python2":
                rand = rng.random
                row = [int(rand() * num_references) for _ in range(num_sentences)]
            else:
                row = [_randbelow_py3(rng, num_references) for _ in range(num_sentences)]
            out[j] = row
    cache.save_array(key, out)
    out.setflags(write=False)
    return out


def present_reference_indices(iterations: int, slots: tuple[tuple[int, ...], ...], seed: int,
                              sampling: str) -> np.ndarray:
    """:func:`sample_reference_indices` when sentence n has its own references ``slots[n]``:
    the same generators, drawing among ``len(slots[n])`` and mapping the draw to its slot
    (with every slot present, the draws are :func:`sample_reference_indices`').

    Returns:
        int64 array of shape (I, N).
    """
    counts = [len(x) for x in slots]
    out = np.zeros((iterations, len(slots)), dtype=np.int64)
    for j in range(iterations):
        rng = random.Random(seed + OFFICIAL_SEED_STRIDE * j)
        if sampling == "python2":
            rand = rng.random
            draws = [int(rand() * c) for c in counts]
        else:
            draws = [_randbelow_py3(rng, c) for c in counts]
        out[j] = [slots[n][d] for n, d in enumerate(draws)]
    return out


def _iteration_totals(stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Corpus counts of every system in every iteration: sum over sentences of the counts
    against the reference that iteration draws.

    Args:
        stats: shape (S, N, R, K).
        idx: shape (T, N), the drawn reference per (iteration, sentence)
            (:func:`sample_reference_indices`).

    Returns:
        shape (T, S, K); exact for integer counts (one float64 product with a 0/1 matrix).
    """
    num_sys, num_sent, num_ref, k = stats.shape
    iterations = len(idx)
    # onehot[t, n * R + r] = 1 iff iteration t draws reference r for sentence n.
    onehot = np.zeros((iterations, num_sent * num_ref), dtype=np.float64)
    onehot[np.arange(iterations)[:, None], np.arange(num_sent) * num_ref + idx] = 1.0
    flat = stats.reshape(num_sys, num_sent * num_ref, k).transpose(1, 0, 2).reshape(num_sent * num_ref, -1)
    return (onehot @ flat).reshape(iterations, num_sys, k)


@dataclass(frozen=True)
class GLEU(Metric):
    """GLEU+ (Napoles et al. 2015, 2016) as sufficient statistics.  See the module docstring.

    Fields:
        max_n: highest n-gram order (4, Napoles et al. 2015; official variant: must be 4).
        iterations: reference-sampling iterations of the corpus score (500, compute_gleu).
            Stage 2 only.
        seed: offset added to the official per-iteration seed ``101 * j`` (0 = official).
            Stage 2 only.
        variant: ``"official"`` or ``"corrected"`` (quirks Q1-Q6 in the module docstring).
        sampling: ``"python2"`` or ``"python3"`` reference sampling (Q5); empty = the
            variant's default (official -> python2, corrected -> python3).  Stage 2 only.
        tokens: ``split`` (``str.split()``, the official script) or ``space``
            (``str.split(' ')``, gec-metrics 0.1.1: an empty sentence has length 1 and no
            n-gram, a leading or doubled space is an empty token -- GJG15's NTHU output has
            three such lines).  Set ``space`` to reproduce that library's numbers exactly.

    Statistics: shape (S, N, R, 2 * max_n + 2), last axis ``(hyp_len, ref_len, num_1,
    den_1, ..., num_n, den_n)``.
    """

    languages: ClassVar[tuple[str, ...] | str] = ANY_LANGUAGE  # reads tokens (Chinese: characters)

    name: ClassVar[str] = "gleu"
    version: ClassVar[str] = "1"

    max_n: int = field(default=4, metadata=valid(integer(1, hi=MAX_NGRAM_ORDER)))
    iterations: int = field(default=OFFICIAL_ITERATIONS, metadata=valid(integer(1, hi=MAX_ITERATIONS)))
    seed: int = field(default=0, metadata=valid(integer()))
    variant: str = "official"
    sampling: str = ""
    tokens: str = "split"
    #: per sentence, the reference slots that hold a reference of that sentence (set by
    #: :meth:`bind` from :attr:`gec_meta.data.refsets.References.present` when some slots are
    #: stand-ins, e.g. RevisitCGEC's 1-11 references); () = every slot.  Stage 2 only.
    _present_slots: tuple = field(default=(), repr=False, compare=False, kw_only=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.variant not in _VARIANTS:
            raise ValueError(f"variant must be one of {_VARIANTS}, got {self.variant!r}")
        for name in ("max_n", "iterations", "seed"):  # numpy ints -> int (checked above)
            object.__setattr__(self, name, int(getattr(self, name)))
        if self.variant == "official" and self.max_n != OFFICIAL_ORDER:
            raise ValueError(
                f"variant 'official' fixes the n-gram order at {OFFICIAL_ORDER} (the script "
                f"ignores -n); got max_n={self.max_n}. Use variant='corrected'."
            )
        if self.tokens not in TOKENS:
            raise ValueError(f"tokens must be one of {TOKENS}, got {self.tokens!r}")
        if self.sampling == "":
            object.__setattr__(self, "sampling", "python2" if self.variant == "official" else "python3")
        if self.sampling not in _SAMPLINGS:
            raise ValueError(f"sampling must be one of {_SAMPLINGS} (or ''), got {self.sampling!r}")

    def bind(self, sources, hypotheses, references, systems=None) -> "GLEU":
        """This metric drawing, for each sentence, among its own references only (compute_gleu
        draws among the R files it is given; with stand-ins for absent references, drawing
        among all R slots would weight a sentence's first reference more)."""
        present = present_mask(references)
        slots = () if present is None else tuple(
            tuple(r for r in range(len(present)) if present[r][n]) or (0,) for n in range(len(present[0])))
        return self if slots == self._present_slots else dataclasses.replace(self, _present_slots=slots)

    def _draws(self, num_sent: int, num_ref: int) -> np.ndarray:
        """The reference of every (iteration, sentence), shape (I, N)."""
        if not self._present_slots:
            return sample_reference_indices(self.iterations, num_sent, num_ref, self.seed, self.sampling)
        if len(self._present_slots) != num_sent:
            raise GecMetaError(f"gleu: bound to {len(self._present_slots)} sentences with a varying number of "
                               f"references, scored on {num_sent} (resampling such sets is not supported)")
        return present_reference_indices(self.iterations, self._present_slots, self.seed, self.sampling)

    @property
    def stat_names(self) -> tuple[str, ...]:  # type: ignore[override]
        names = ["hyp_len", "ref_len"]
        for n in range(1, self.max_n + 1):
            names += [f"num_{n}", f"den_{n}"]
        return tuple(names)

    def stats_options(self) -> dict[str, object]:
        opts: dict[str, object] = {"max_n": self.max_n, "variant": self.variant}
        if self.tokens != "split":
            opts["tokens"] = self.tokens
        return opts

    # ------------------------------------------------------------------ stage 1
    def statistics(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[Sequence[str]],
        references: Sequence[Sequence[str]],
    ) -> np.ndarray:
        """GLEU statistics of every (system, sentence, reference) (arguments as
        :meth:`Metric.statistics`, R >= 1): float64 array of shape (S, N, R, 2 * max_n + 2);
        see the module docstring."""
        validate_inputs(sources, hypotheses, references)
        triples, index = dedupe_triples(sources, hypotheses, references)
        cache = NgramCache(self.max_n, self.tokens)
        official = self.variant == "official"
        k = 2 * self.max_n + 2
        table = np.zeros((len(triples), k), dtype=np.float64)
        for j, (src, hyp, ref) in enumerate(triples):
            cs, ch, cr = cache.get(src), cache.get(hyp), cache.get(ref)
            if self.tokens == "space":  # len(x.split(' ')): 1 for an empty sentence
                hlen, rlen = len(hyp.split(" ")), len(ref.split(" "))
            else:
                hlen, rlen = len(hyp.split()), len(ref.split())
            row = table[j]
            row[0], row[1] = hlen, rlen
            for n in range(self.max_n):
                s_n, h_n, r_n = cs[n], ch[n], cr[n]
                match = penalty = 0
                for g, h in h_n.items():
                    r = r_n.get(g, 0)
                    s = s_n.get(g, 0)
                    hr = min(h, r)
                    match += hr
                    if official:
                        if r == 0:  # Q1: S \ R drops every n-gram that occurs in R at all
                            penalty += min(h, s)
                    else:
                        penalty += max(0, min(h, s) - hr)
                num = match - penalty
                if official:
                    num = max(num, 0)  # Q2: per-sentence clipping
                row[2 + 2 * n] = num
                row[3 + 2 * n] = sum(h_n.values())  # the hypothesis' (n+1)-grams
        return table[index]

    # ------------------------------------------------------------------ stage 2
    def _gleu(self, stats: np.ndarray, smooth: bool = False) -> np.ndarray:
        """GLEU of statistics of shape (..., 2 * max_n + 2); returns shape (...)."""
        stats = np.asarray(stats, dtype=np.float64)
        if stats.shape[-1] != 2 * self.max_n + 2:
            raise ValueError(f"GLEU statistics need {2 * self.max_n + 2} columns, got {stats.shape[-1]}")
        if smooth:
            stats = np.where(stats == 0, 1.0, stats)
        return self._gleu_of(stats[..., 0], stats[..., 1], stats[..., 2::2], stats[..., 3::2])

    def _gleu_of(self, c: np.ndarray, r: np.ndarray, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        """GLEU from its columns, which only need to broadcast: hypothesis length ``c`` and
        reference length ``r`` of shape (...), matches ``num`` and n-gram counts ``den`` of
        shape (..., max_n).  Returns the broadcast shape (...).  (Split out so that the SPA
        permutations pass their per-permutation constants as (R, 1) and only the matches as
        (R, iterations, max_n): the same arithmetic, elementwise, as on the assembled array.)"""
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.variant == "official":
                ok = (c != 0) & (r != 0) & np.all(num != 0, axis=-1) & np.all(den != 0, axis=-1)  # Q3
                p = np.where(ok[..., None], num / np.where(den == 0, 1.0, den), 1.0)
            else:
                p = np.where(num == den, 1.0, num / np.where(den == 0, 1.0, den))
                ok = np.all(p > 0, axis=-1) & (c > 0)
            logp = np.log(np.where(p > 0, p, 1.0)).sum(axis=-1) / self.max_n
            log_bp = np.minimum(0.0, 1.0 - r / np.where(c == 0, 1.0, c))
        return np.where(ok, np.exp(log_bp + logp), 0.0)

    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        """GLEU of (summed) statistics of shape (..., K) against fixed references: shape (...).

        Unsmoothed, in the variant's arithmetic (official: Q3 zero rule).
        """
        return self._gleu(stats)

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        """Sentence GLEU: mean over the references of the per-reference GLEU.

        official: the script's ``--debug`` score (zero statistics smoothed to 1, Q6);
        corrected: gec-metrics 0.1.1 ``GLEU.score_sentence``.

        Args:
            stats: shape (S, N, R, K).

        Returns:
            shape (S, N).
        """
        return self._gleu(stats, smooth=self.variant == "official").mean(axis=-1)

    corpus_reduction = None  # corpus n-gram counts

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        """Corpus GLEU: mean over ``iterations`` of the corpus GLEU with one sampled reference
        per sentence (compute_gleu's procedure; see :func:`sample_reference_indices`).

        Args:
            stats: shape (S, N, R, K).

        Returns:
            shape (S,).
        """
        stats = np.asarray(stats, dtype=np.float64)
        if stats.ndim != 4:
            raise ValueError(f"stats must have shape (S, N, R, K), got {stats.shape}")
        _, num_sent, num_ref, _ = stats.shape
        idx = self._draws(num_sent, num_ref)
        return self._gleu(_iteration_totals(stats, idx)).mean(axis=0)

    def swapped_pairs_corpus_scores(self, stats: np.ndarray, pairs, signs: np.ndarray) -> np.ndarray:
        """:meth:`corpus_scores` of systems i and j of every pair when they swap their
        statistics on the sentences where ``signs`` is -1 (the permutations of soft pairwise
        accuracy, :meth:`gec_meta.meta.aggregation.Default.swapped_pairs_scores`).

        Each iteration's corpus counts are sums over sentences of the sampled reference's
        counts, so a swap moves (counts of j - counts of i) on the flipped sentences: products
        (R, N) @ (N, K) per pair instead of R corpus scorings.  Only the sentences whose
        difference depends on the sampled reference need one column per iteration; the rest,
        and every column no reference changes (lengths, n-gram counts), move the same in every
        iteration.  Integer counts: every sum is exact, so the scores equal
        :meth:`corpus_scores` of the swapped statistics up to the order of the mean over the
        iterations (the last ulp; tested).

        Args:
            stats: shape (S, N, R_refs, K).
            pairs: (i, j) system indices.
            signs: shape (R, N) of -1/+1.

        Returns:
            shape (len(pairs), R, 2).
        """
        stats = np.asarray(stats, dtype=np.float64)
        _, num_sent, num_ref, k = stats.shape
        idx = self._draws(num_sent, num_ref)  # (T, N)
        flip = np.asarray(signs) < 0  # (R, N)
        num_perm, rows = len(flip), np.arange(num_sent)
        totals = _iteration_totals(stats, idx)  # (T, S, K): every system's corpus counts per iteration
        # Integer counts whose sums stay below 2**24 are exact in float32 (twice the speed of
        # the float64 product); otherwise float64.
        exact32 = bool(np.all(stats == np.round(stats))) and float(np.abs(stats).sum(axis=1).max(initial=0)) < 2 ** 24
        dtype = np.float32 if exact32 else np.float64
        # Columns no reference changes (hypothesis length, n-gram counts) are one number per
        # permutation; the others (matches, reference length) one per iteration.
        varies = np.any(stats != stats[:, :, :1, :], axis=(0, 1, 2))  # (K,)

        def gleu(total: np.ndarray, moved: np.ndarray, extra: dict[int, np.ndarray]) -> np.ndarray:
            """Corpus GLEU of every permutation, (R,): iteration counts ``total`` (T, K) plus
            ``moved`` (R, K) on every column and ``extra[col]`` (R, T) on some columns."""
            def column(col: int) -> np.ndarray:  # (R, 1) or (R, T)
                if col in extra:
                    return total[:, col] + (moved[:, col, None] + extra[col])
                return (total[:, col] if varies[col] else total[0, col]) + moved[:, col, None]

            num = np.stack(np.broadcast_arrays(*[column(c) for c in range(2, k, 2)]), axis=-1)
            den = np.stack(np.broadcast_arrays(*[column(c) for c in range(3, k, 2)]), axis=-1)
            value = self._gleu_of(column(0), column(1), num, den)
            return np.broadcast_to(value, (num_perm, self.iterations)).mean(axis=1)

        out = np.zeros((len(pairs), num_perm, 2))
        for q, (i, j) in enumerate(pairs):
            diff = stats[j] - stats[i]  # (N, R_refs, K)
            first = diff[rows, idx[0]]  # (N, K): against iteration 0's reference
            by_ref = np.any(diff != first[:, None], axis=1)  # (N, K): the difference depends on the reference
            moved_rows = np.flatnonzero(np.any(first != 0, axis=1) | by_ref.any(axis=1))
            var_rows, var_cols = np.flatnonzero(by_ref.any(axis=1)), np.flatnonzero(by_ref.any(axis=0))
            moved = (flip[:, moved_rows].astype(dtype) @ first[moved_rows].astype(dtype)).astype(np.float64)  # (R, K)
            extra = np.zeros((num_perm, self.iterations, 0))
            if len(var_rows):  # the reference-dependent part: one column per iteration
                d = diff[var_rows][:, :, var_cols]  # (V, R_refs, C)
                rest = d[np.arange(len(var_rows))[:, None], idx[:, var_rows].T] - first[var_rows][:, None, var_cols]
                extra = (flip[:, var_rows].astype(dtype) @ rest.reshape(len(var_rows), -1).astype(dtype)
                         ).astype(np.float64).reshape(num_perm, self.iterations, len(var_cols))
            out[q, :, 0] = gleu(totals[:, i], moved, {c: extra[:, :, n] for n, c in enumerate(var_cols)})
            out[q, :, 1] = gleu(totals[:, j], -moved, {c: -extra[:, :, n] for n, c in enumerate(var_cols)})
        return out
