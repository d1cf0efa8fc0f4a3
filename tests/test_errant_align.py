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
        # FastAlignment fills only the block before the texts' common suffix: ERRANT's top-left
        # block, whose backtrace plus one match per suffix token is ERRANT's alignment.
        tail = 0
        while tail < min(len(src), len(trg)) and src[len(src) - 1 - tail] == trg[len(trg) - 1 - tail]:
            tail += 1
        rows, cols = len(src) - tail + 1, len(trg) - tail + 1
        assert fast.cost_matrix == [row[:cols] for row in ref.cost_matrix[:rows]]
        assert fast.op_matrix == [row[:cols] for row in ref.op_matrix[:rows]]
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


@pytest.mark.parametrize("src,trg", [
    ("He go to school yesterday .", "He went to school yesterday ."),
    ("the cat sat on mat", "The cat sat on the mat ."),
    ("on the mat sat the cat", "the cat sat on the mat"),         # long transposition
    ("I have a apple and a orange", "I have an apple and an orange"),
    ("the the cat sat .", "the cat sat ."),                       # the tail ends in a repeat
    ("cat sat .", "the cat sat ."),                               # orig is cor's suffix
    ("He sat .", "He sat ."),                                     # equal texts: all tail
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
