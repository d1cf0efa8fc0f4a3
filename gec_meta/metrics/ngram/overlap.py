"""N-gram overlap of two texts: the similarity of a system output and its LLM post-edit
(:mod:`gec_meta.metrics.llm_pe`).

Östling, Kurfalı & Caines (BEA 2025, "LLM-based post-editing as reference-free GEC evaluation")
report that "a simple n-gram overlap metric is sufficient to measure post-editing distance"; the
text of the paper available here is its abstract only, and its code is not public (the authors'
``robertostling/gec-evaluation`` repository holds their 2023 paper's code: GLEU and normalised
Levenshtein distance to human post-edits).  So the definition is ours, written down here:

    tokens(t)   = characters of t except whitespace                 (zh, ja: no word spaces)
                = maximal runs of word characters, and every other
                  non-space character on its own (regex ``\\w+|[^\\w\\s]``)  (other languages)
    F_n(a, b)   = 2 |G_n(a) ∩ G_n(b)| / (|G_n(a)| + |G_n(b)|)   (Dice / F1 of the n-gram multisets,
                  clipped counts as in BLEU's modified precision)
    overlap(a, b) = mean of F_n over n = 1..4, leaving out the orders where neither text has an
                  n-gram (both shorter than n tokens); 1.0 for two texts without tokens.

An order in which only one of the texts has n-grams scores 0.  The measure is symmetric, 1 for
texts with the same tokens in the same order and 0 for texts that share no token.  Tokens are
whitespace tokens where the text is tokenised (punctuation split off), and the regex makes
``word.`` and ``word .`` alike, since the benchmarks' outputs are tokenised while an LLM writes
ordinary text; ``\\w`` is Unicode-aware, so Cyrillic, Greek and Latin scripts with diacritics
tokenise alike.  No library computes exactly this (sacreBLEU's chrF is character-level with
β = 2, its BLEU a geometric mean with a brevity penalty), and it is a few lines.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

#: The n-gram orders averaged (1..4, as BLEU and GLEU).
MAX_ORDER = 4

#: Languages written without spaces between words: tokens are characters.
CHARACTER_LANGUAGES = frozenset({"zh", "ja"})

_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str, language: str) -> list[str]:
    """The overlap's tokens of ``text`` (module docstring), shape (T,)."""
    if language in CHARACTER_LANGUAGES:
        return [c for c in text if not c.isspace()]
    return _TOKEN.findall(text)


def _grams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def ngram_overlap(a: Sequence[str], b: Sequence[str], max_order: int = MAX_ORDER) -> float:
    """The mean n-gram F1 of two token sequences over n = 1..max_order (module docstring).

    Returns:
        a number in [0, 1].
    """
    scores = []
    for n in range(1, max_order + 1):
        ga, gb = _grams(a, n), _grams(b, n)
        total = sum(ga.values()) + sum(gb.values())
        if total == 0:
            continue
        scores.append(2 * sum((ga & gb).values()) / total)
    return sum(scores) / len(scores) if scores else 1.0


def text_overlap(a: str, b: str, language: str) -> float:
    """:func:`ngram_overlap` of the tokens of two texts in ``language`` (ISO 639-1 code)."""
    return ngram_overlap(tokenize(a, language), tokenize(b, language))
