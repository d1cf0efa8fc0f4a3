"""The texts' common prefix and suffix that ERRANT's and ChERRANT's alignments skip."""

import os
import random

from gec_meta.edits.affixes import common_prefix_length, common_suffix_length


def test_affix_lengths_equal_commonprefix_on_random_token_lists():
    # os.path.commonprefix compares any sequences item by item: an independent answer
    rng = random.Random(0)
    for _ in range(500):
        a = [rng.choice("abc") for _ in range(rng.randint(0, 6))]
        b = [rng.choice("abc") for _ in range(rng.randint(0, 6))]
        suffix = len(os.path.commonprefix([a[::-1], b[::-1]]))
        prefix = len(os.path.commonprefix([a, b]))
        assert common_suffix_length(a, b) == suffix
        assert common_prefix_length(a, b, min(len(a), len(b))) == prefix
        assert common_prefix_length(a, b, 99) == prefix  # a limit past either length is cut to it
        # the limit ERRANT passes: the prefix within what the suffix left
        limit = min(len(a), len(b)) - suffix
        assert common_prefix_length(a, b, limit) == min(prefix, limit)


def test_whole_texts_and_empty_texts():
    assert common_suffix_length("the cat".split(), "the cat".split()) == 2
    assert common_suffix_length([], "a".split()) == 0
    assert common_prefix_length("a b c".split(), "a b d".split(), 3) == 2
    assert common_suffix_length("I like cats .".split(), "I likes cats .".split()) == 2
