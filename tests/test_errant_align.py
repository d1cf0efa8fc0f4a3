"""FastAlignment = errant's own Alignment, matrix for matrix and edit for edit."""

from __future__ import annotations

import pytest
from errant.alignment import Alignment
from hypothesis import given, settings
from hypothesis import strategies as st

from gec_meta.edits.extract import load_annotator
from gec_meta.edits.errant_align import FastAlignment, annotate

# Words chosen so that lemmas, POS, case-only changes, transpositions and repeats all occur.
WORDS = ["the", "The", "a", "cat", "cats", "sat", "sits", "sitting", "on", "in", "mat", "mats",
         "is", "are", "was", ",", ".", "quickly", "quick", "he", "He", "go", "goes", "went"]


@pytest.fixture(scope="module")
def annotator():
    return load_annotator()


def _doc(annotator, words):
    from spacy.tokens import Doc

    nlp = annotator.nlp
    return nlp(Doc(nlp.vocab, words=words)) if words else nlp(Doc(nlp.vocab, words=[]))


def _same(annotator, src, trg):
    orig, cor = _doc(annotator, src), _doc(annotator, trg)
    for lev in (False, True):
        ref, fast = Alignment(orig, cor, lev), FastAlignment(orig, cor, lev)
        assert fast.align(lev) == (ref.cost_matrix, ref.op_matrix)  # ERRANT's whole matrices
        # FastAlignment fills only the block between the texts' common prefix (head) and suffix
        # (tail): ERRANT's cells there, except the block's border (row and column 0), which holds
        # the plain insertions / deletions of the block's own texts (and ERRANT's values).
        tail = 0
        while tail < min(len(src), len(trg)) and src[len(src) - 1 - tail] == trg[len(trg) - 1 - tail]:
            tail += 1
        head = 0
        while head < min(len(src), len(trg)) - tail and src[head] == trg[head]:
            head += 1
        assert fast.tail == tail and fast.head in (0, head)  # 0: ERRANT's path leaves the border
        rows, cols = len(src) - tail + 1, len(trg) - tail + 1
        costs = [row[fast.head:cols] for row in ref.cost_matrix[fast.head:rows]]
        ops = [row[fast.head:cols] for row in ref.op_matrix[fast.head:rows]]
        assert fast.cost_matrix == costs
        assert [row[1:] for row in fast.op_matrix[1:]] == [row[1:] for row in ops[1:]]
        assert fast.align_seq == ref.align_seq
    want = [(e.o_start, e.o_end, e.c_start, e.c_end, e.c_str, e.type) for e in annotator.annotate(orig, cor)]
    got = [(e.o_start, e.o_end, e.c_start, e.c_end, e.c_str, e.type) for e in annotate(annotator, orig, cor)]
    assert got == want


@settings(max_examples=40, deadline=None)
@given(src=st.lists(st.sampled_from(WORDS), min_size=0, max_size=9),
       trg=st.lists(st.sampled_from(WORDS), min_size=0, max_size=9))
def test_random_sentences(annotator, src, trg):
    _same(annotator, src, trg)


@settings(max_examples=40, deadline=None)
@given(src=st.lists(st.sampled_from(WORDS), min_size=0, max_size=6),
       trg=st.lists(st.sampled_from(WORDS), min_size=0, max_size=6),
       tail=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
def test_random_sentences_with_a_common_tail(annotator, src, trg, tail):
    # The common suffix that FastAlignment does not fill, next to repeats and transpositions
    _same(annotator, src + tail, trg + tail)


@settings(max_examples=40, deadline=None)
@given(head=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
       src=st.lists(st.sampled_from(WORDS), min_size=0, max_size=5),
       trg=st.lists(st.sampled_from(WORDS), min_size=0, max_size=5),
       tail=st.lists(st.sampled_from(WORDS), min_size=0, max_size=3))
def test_random_sentences_with_a_common_head(annotator, head, src, trg, tail):
    # The common prefix that FastAlignment does not fill either; the words after it repeat the
    # prefix's last word, differ from it in case only or transpose with it
    _same(annotator, head + src + tail, head + trg + tail)


@pytest.mark.parametrize("src,trg", [
    ("He go to school yesterday .", "He went to school yesterday ."),
    ("the cat sat on mat", "The cat sat on the mat ."),
    ("on the mat sat the cat", "the cat sat on the mat"),         # long transposition
    ("I have a apple and a orange", "I have an apple and an orange"),
    ("the the cat sat .", "the cat sat ."),                       # the tail ends in a repeat
    ("cat sat .", "the cat sat ."),                               # orig is cor's suffix
    ("He sat .", "He sat ."),                                     # equal texts: all tail
    ("we saw cats", "we saw Saw cats"),                           # ERRANT's path leaves the border
    ("we saw cats", "we saw saw cats"),                           # (a free substitution, a match)
    ("we saw cats", "we cats"),                                   # a deletion after the prefix
    ("He goes to school", "He go to to school"),
])
def test_hand_picked(annotator, src, trg):
    _same(annotator, src.split(), trg.split())


def test_real_seeda_pairs(annotator, data_root):
    from gec_meta.data.datasets import load_dataset

    ds = load_dataset("seeda", data_root, setting="base")
    pairs = [(ds.sources[n], hyp[n]) for hyp in ds.hypotheses[:3] for n in range(0, ds.num_sentences, 13)]
    for s, t in pairs:
        if s != t:
            _same(annotator, s.split(), t.split())
