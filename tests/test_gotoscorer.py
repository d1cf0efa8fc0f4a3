"""GoToScorer: hand-worked chunk examples and gec-metrics' golden values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gec_meta.metrics.edit.gotoscorer import (
    FN, FP, FP_FN, TN, TP, Chunk, GoToScorer, GoToScorerUnweighted, _counts, chunk_index, chunk_sequence,
    difficulty_weights, judge,
)

TOKENS = ["a", "b", "c"]


def _judge_all(ref, hyp):
    index, edits = chunk_index(hyp)
    return [judge(c, index, edits) for c in ref]


def test_chunk_sequence_by_hand():
    # "a b c" with b -> X and "d" inserted at the end:
    # slot a slot X slot c d   (no slot after an insertion)
    hyp = chunk_sequence(TOKENS, [(1, 2, "X"), (3, 3, "d")])
    assert hyp == (
        Chunk(0, 0, "", False), Chunk(0, 1, "a", False), Chunk(1, 1, "", False), Chunk(1, 2, "X", True),
        Chunk(2, 2, "", False), Chunk(2, 3, "c", False), Chunk(3, 3, "d", True),
    )
    # no edit: 3 tokens and 4 slots
    assert len(chunk_sequence(TOKENS, [])) == 7
    assert chunk_sequence([], []) == (Chunk(0, 0, "", False),)


def test_outcomes_and_weights_by_hand():
    ref = chunk_sequence(TOKENS, [(1, 2, "B")])          # slot a slot B* slot c slot
    hyp = chunk_sequence(TOKENS, [(1, 2, "X"), (3, 3, "d")])
    copy = chunk_sequence(TOKENS, [])                      # the source itself
    good = chunk_sequence(TOKENS, [(1, 2, "B")])
    # B*: hyp tried X (wrong) -> FP and FN; end slot: hyp inserted "d" -> FP; rest TN.
    assert _judge_all(ref, hyp) == [TN, TN, TN, FP_FN, TN, TN, FP]
    # the source copy misses B -> FN
    assert _judge_all(ref, copy) == [TN, TN, TN, FN, TN, TN, TN]
    assert _judge_all(ref, good) == [TN, TN, TN, TP, TN, TN, TN]
    # weights over systems {hyp, copy}: B corrected by none -> 1; the end slot kept by the copy
    # only -> 1 - 1/2 = 0.5; every other chunk kept by both -> 0.
    w = difficulty_weights(ref, [hyp, copy])
    assert w == (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.5)
    # hyp: FP = 1 (B) + 0.5 (slot) = 1.5, FN = 1 (B), TN = 0 -> (0, 1.5, 1, 0)
    assert _counts(_judge_all(ref, hyp), w) == (0.0, 1.5, 1.0, 0.0)
    # copy: FN = 1, TN = 0.5 (end slot)
    assert _counts(_judge_all(ref, copy), w) == (0.0, 0.0, 1.0, 0.5)
    # unweighted hyp: FP 2, FN 1, TN 5
    assert _counts(_judge_all(ref, hyp), [1.0] * 7) == (0.0, 2.0, 1.0, 5.0)


def test_insertion_before_an_edited_token_tries_it():
    # GTS rule: a hypothesis insertion at the start of a reference chunk covers it.
    # ref: b -> B.  hyp: inserts X before b, leaves b.   ref chunks: slot a slot B* slot c slot
    ref = chunk_sequence(TOKENS, [(1, 2, "B")])
    hyp = chunk_sequence(TOKENS, [(1, 1, "X")])          # slot a X* b slot c slot
    # slot before b: the hypothesis put X there -> tried, wrong -> FP;
    # B*: the hypothesis kept "b" but its insertion at 1 tried the chunk -> FP and FN (not only FN)
    assert _judge_all(ref, hyp) == [TN, TN, FP, FP_FN, TN, TN, TN]


def test_reference_insertion_inside_a_hypothesis_edit_is_missed():
    # ref inserts Y before c; hyp replaces "b c" by Z (no slot at 2 in the hypothesis).
    ref = chunk_sequence(TOKENS, [(2, 2, "Y")])          # slot a slot b Y* c slot
    hyp = chunk_sequence(TOKENS, [(1, 3, "Z")])          # slot a slot Z* slot
    # b and c are overwritten by Z -> FP each; Y* has no same-span hypothesis chunk -> an
    # untried miss (FN), not a true negative.
    assert _judge_all(ref, hyp) == [TN, TN, TN, FP, FN, FP, TN]
    # weights over {hyp, source copy}: nobody inserted Y -> 1; the copy keeps b and c -> 1/2;
    # slots and "a" are kept by both -> 0.
    w = difficulty_weights(ref, [hyp, chunk_sequence(TOKENS, [])])
    assert w == (0.0, 0.0, 0.0, 0.5, 1.0, 0.5, 0.0)


def test_two_hypothesis_insertions_at_one_position():
    # ERRANT can insert "," and "who" at the same position (SEEDA REF-F, CoNLL line 333).
    # ref inserts "who" before c; the hypothesis inserts "," and "who" there.
    ref = chunk_sequence(TOKENS, [(2, 2, "who")])               # slot a slot b who* c slot
    hyp = chunk_sequence(TOKENS, [(2, 2, ","), (2, 2, "who")])  # slot a slot b ,* who* c slot
    # GTS: "," covers (tried, wrong), then "who" is equal and overrides -> TP
    assert _judge_all(ref, hyp) == [TN, TN, TN, TN, TP, TN, TN]
    assert difficulty_weights(ref, [hyp])[4] == 0.0   # corrected by the only system


# gec-metrics 0.1.1 metrics/gotoscorer_test.py (unweighted, reference 0)
SRCS = ["This sentences contain gramamtical error .", "This is a sentence .", "This is no change ."]
HYPS = ["This sentence contains a grammatical error .", "this was corrected into completely different one .",
        "This is no change ."]
REFS = [["This sentence contains a gramamtical error .", "dummy sentence .", "This is no change ."],
        ["These sentences contain grammatical errors .", "another dummy sentence .", "This is no change ."]]


@pytest.mark.parametrize("beta,corpus,sentence", [
    (0.5, 0.40540540540540543, [0.7894736842105263, 0.0, 1.0]),
    (2, 0.5357142857142857, [0.9375, 0.0, 1.0]),
])
def test_gec_metrics_golden(beta, corpus, sentence):
    m = GoToScorerUnweighted(beta=beta)
    stats = m.statistics(SRCS, [HYPS], REFS)
    assert math.isclose(float(m.corpus_scores(stats)[0]), corpus, abs_tol=1e-9)
    np.testing.assert_allclose(m.sentence_scores(stats)[0], sentence, atol=1e-9)


def test_bind_fixes_the_system_set():
    unbound = GoToScorer()
    bound = unbound.bind(SRCS, [HYPS, SRCS], REFS)
    assert bound.system_set.startswith("2sys-")
    assert "unbound" in unbound.cache_key() and bound.cache_key() != GoToScorer().cache_key()
    # same systems in another order: same weights identity
    assert GoToScorer().bind(SRCS, [SRCS, HYPS], REFS).cache_key() == bound.cache_key()
    # statistics of an unbound metric = bound on the systems it receives
    np.testing.assert_allclose(unbound.statistics(SRCS, [HYPS, SRCS], REFS), bound.statistics(SRCS, [HYPS, SRCS], REFS))
    # weights depend on the system set: scoring HYPS alone gives other numbers
    alone = GoToScorer().statistics(SRCS, [HYPS], REFS)
    assert not np.allclose(alone[0], bound.statistics(SRCS, [HYPS, SRCS], REFS)[0])


# --------------------------------------------------------------------- GTS's own demo
#: GTS's README demo (gotutiyan/GTS ``demo/ref.m2``, ``demo/hyp.m2``) as texts; ERRANT extracts
#: the demo's edits from them (review of session 23: the same edits as the M2 files).
GTS_SOURCES = ["We discussing about its .", "I have been to park tomorrow ."]
GTS_REF = ["We have been discussing it .", "I go to the park ."]
GTS_SYSTEMS = [["We have been discussing about it .", "I go to the park tomorrow ."],
               ['" We are discussing it . "', "I have went to the park tomorrow ."],
               ["We talking it .", "I have to been to the park past ."]]
#: ``python gotoscorer.py -ref demo/ref.m2 -hyp demo/hyp.m2 -v`` as its README prints it:
#: TP, FP, FN, TN, F0.5 of systems 0, 1, 2.
GTS_README = [(1.3333, 0.0, 1.6667, 1.0, 0.8), (0.6667, 2.0, 2.3333, 0.3333, 0.2439), (0.0, 2.6667, 3.0, 0.6667, 0.0)]


def test_gts_readme_demo_weighted():
    metric = GoToScorer().bind(GTS_SOURCES, GTS_SYSTEMS, [GTS_REF])
    stats = metric.statistics(GTS_SOURCES, GTS_SYSTEMS, [GTS_REF])
    totals = stats[:, :, 0, :].sum(axis=1)
    f = metric.corpus_scores(stats)
    got = [tuple(round(float(x), 4) for x in (*totals[s], f[s])) for s in range(3)]
    assert got == GTS_README


def test_a_system_with_no_weighted_count_scores_zero_as_in_gts(recwarn):
    """One perfect system evaluated alone: every chunk it gets right weighs 0, so TP = FP = FN = 0;
    GTS's ``Score.get_PRFA`` gives P = R = F = 0 (errant_compare's conventions would give 1)."""
    metric = GoToScorer().bind(GTS_SOURCES, [GTS_REF], [GTS_REF])
    assert any("difficulty weights from 1 system" in str(w.message) for w in recwarn)
    stats = metric.statistics(GTS_SOURCES, [GTS_REF], [GTS_REF])
    assert stats[..., :3].sum() == 0.0
    p, r, f = metric.corpus_prf(stats)
    assert (float(p[0]), float(r[0]), float(f[0])) == (0.0, 0.0, 0.0)
    assert float(metric.corpus_scores(stats)[0]) == 0.0
    # sentence level is not GTS's: a sentence with nothing weighed keeps errant_compare's 1
    sent = GoToScorer(level="sentence").bind(GTS_SOURCES, [GTS_REF], [GTS_REF])
    assert float(sent.corpus_scores(sent.statistics(GTS_SOURCES, [GTS_REF], [GTS_REF]))[0]) == 1.0


def test_sentence_level_is_named_in_the_signature():
    """Two levels give two numbers, so two signatures (the metric has no sentence-level name)."""
    corpus, sentence = GoToScorer(), GoToScorer(level="sentence")
    assert "level=sentence" in sentence.signature() and "level" not in corpus.signature()
    assert GoToScorerUnweighted(level="sentence").signature() != GoToScorerUnweighted().signature()
    # the statistics are the same at both levels: one cache entry serves both
    assert GoToScorerUnweighted(level="sentence").cache_key() == GoToScorerUnweighted().cache_key()
