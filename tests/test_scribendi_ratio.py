"""Scribendi's token-sort ratio follows fuzzywuzzy 0.18 exactly, as gec-metrics calls it
(issue 19 item 4).

Every expected value below is fuzzywuzzy's own output, obtained outside this project in a
scratch venv (``pip install fuzzywuzzy==0.18.0 python-Levenshtein`` -> fuzzywuzzy 0.18.0,
python-Levenshtein 0.27.5, the dependencies gec-metrics declares) with
``fuzzywuzzy.fuzz.token_sort_ratio(source, hypothesis)`` (defaults: force_ascii=True,
full_process=True).  The same run agreed with our function on all 24,023 changed
(source, hypothesis) pairs of SEEDA (391 and 1,312 sentences, 15 systems) and GJG15.
"""

from __future__ import annotations

import pytest

from gec_meta.metrics.neural.scribendi import Scribendi, fuzzywuzzy_tokens, token_sort_ratio

GEC_METRICS_SRC = "this sentences contain gramamtical error ."
GEC_METRICS_HYP = "this sentence contains a grammatical error ."

# (source, hypothesis, fuzzywuzzy.fuzz.token_sort_ratio) -- values printed by fuzzywuzzy 0.18.0.
FUZZYWUZZY = [
    (GEC_METRICS_SRC, GEC_METRICS_HYP, 93),  # Indel similarity 76/82 = 92.68 %, rounded
    ("this is a sentence .", "the sentence was corrected into completely different one .", 41),
    ("error the in", "in the error", 100),  # token order does not matter
    # force_ascii drops U+0080..U+00FF: "caf au lait nave rsum" vs "au cafe lait naive resume"
    ("Café au lait , naïve résumé .", "Cafe au lait , naive resume .", 91),
    ("Ünïcödé ÷ ×", "unicode", 60),  # -> "ncd" vs "unicode": 1 - 4/10
    # € and — are outside U+0080..U+00FF: kept by force_ascii, then non-word -> space
    ("The price is 5 € — really ?", "The price is 5 € - really ?", 100),
    ("snake_case word", "snake case word", 67),  # "_" is a word character (regex \W)
    (".", ",", 100),  # both empty after processing: equal strings -> 100 (before the empty check)
    ("", "a", 0),  # one empty -> 0
    # 100 * (1 - 6/16) = 62.5: Python's round (half to even, fuzzywuzzy's utils.intr) -> 62
    ("abcdefgh", "abcdexyz", 62),
    ("abcdefgh", "abcdefxy", 75),
]


@pytest.mark.parametrize("source, hypothesis, percent", FUZZYWUZZY)
def test_token_sort_ratio_equals_fuzzywuzzy(source, hypothesis, percent):
    assert token_sort_ratio(source, hypothesis) == percent / 100


def test_gec_metrics_sentence_is_rounded_to_an_integer_percent():
    # Issue 19 item 4: 0.93 (fuzzywuzzy, gec-metrics) rather than the unrounded 76/82.
    assert token_sort_ratio(GEC_METRICS_SRC, GEC_METRICS_HYP) == 0.93
    # Hand calculation of the unrounded value: sorted tokens
    # "contain error gramamtical sentences this" (40 chars) vs
    # "a contains error grammatical sentence this" (42 chars); Indel distance 6 (insert "a ",
    # insert the "s" of contains, gramamtical -> grammatical = 1 deletion + 1 insertion,
    # delete the "s" of sentences) -> 1 - 6/82 = 0.9268.
    assert token_sort_ratio(GEC_METRICS_SRC, GEC_METRICS_HYP, rounding=False) == pytest.approx(1 - 6 / 82)


def test_processing_matches_fuzzywuzzy_full_process():
    # fuzzywuzzy.utils.full_process("Café au lait , naïve résumé .", force_ascii=True) printed
    # "caf au lait   nave rsum"; its tokens sorted and joined:
    assert fuzzywuzzy_tokens("Café au lait , naïve résumé .") == "au caf lait nave rsum"
    assert fuzzywuzzy_tokens("Café au lait", force_ascii=False) == "au café lait"


# SEEDA REF-F, 391-sentence subset, 0-based sentences 146 and 193: fuzzywuzzy gives 80 (printed
# in the scratch venv); the unrounded ratio is below 0.8 and so is the Levenshtein-distance
# ratio, so the surface test max(TSR, LDR) >= 0.8 flips from fail to pass (issue 19 item 4).
SEEDA_REF_F = [
    ("Some genetic gene will pass only to boys rather than girls , some are on the contrary .",
     "Some genes will only be passed down to boys rather than girls , some are the opposite ."),
    ("From some points of view , social really has a lot of advantages by let us communicate with "
     "friends cheaper and more conveniently .",
     "From some points of view , social media has many advantages by letting us communicate with "
     "friends more cheaply and conveniently than traditional methods ."),
]


@pytest.mark.parametrize("source, hypothesis", SEEDA_REF_F)
def test_seeda_ref_f_pairs_pass_the_surface_test(source, hypothesis):
    from gec_meta.metrics.neural.scribendi import levenshtein_distance_ratio

    assert token_sort_ratio(source, hypothesis) == 0.80
    assert token_sort_ratio(source, hypothesis, rounding=False) < 0.8
    assert levenshtein_distance_ratio(source, hypothesis) < 0.8
    assert max(token_sort_ratio(source, hypothesis), levenshtein_distance_ratio(source, hypothesis)) >= 0.8
    # the statistics changed (v2: fuzzywuzzy ratio; v3: order-independent LM batches): older caches are not reused
    assert Scribendi.version == "3"
