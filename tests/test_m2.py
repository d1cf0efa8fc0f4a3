"""Tests of M2 / SentM2 (M2 at level=sentence; our m2scorer 3.2 re-implementation)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gec_meta.data.m2 import GoldEdit, apply_edits, parse_m2
from gec_meta.metrics.edit.m2 import M2, m2_corpus_prf


def sent_m2():
    return M2(level="sentence")
from gec_meta.edits.m2scorer import (
    EPSILON, NOOP, SUB, TYPE_NAMES, BoundedLattice, Lattice, _lattice_edge_pair, _lattice_edges, best_path,
    build_lattice, choose_annotator, m2_sentence, score_annotator,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def G(s, e, *cors, ann=0):
    return GoldEdit(s, e, "X", tuple(cors), ann)


def stats1(src, hyp, gold, **kw):
    """(tp, fp, fn) of one sentence, one annotator."""
    return tuple(M2(**kw).statistics([src], [[hyp]], [[tuple(gold)]])[0, 0, 0])


# ----------------------------------------------------------------- hand-worked examples
def test_insertion_at_sentence_start():
    # m2scorer's row-0 insertions have offsets (0, 0)
    assert stats1("cat sat .", "The cat sat .", [G(0, 0, "The")]) == (1, 0, 0)
    assert stats1("cat sat .", "A cat sat .", [G(0, 0, "The")]) == (0, 1, 1)


def test_readme_example_alternatives_and_annotators():
    """The worked example of m2scorer's README: P = R = F0.5 = 0.8."""
    m2 = (
        "S The cat sat at mat .\n"
        "A 3 4|||Prep|||on|||REQUIRED|||-NONE-|||0\n"
        "A 4 4|||ArtOrDet|||the||a|||REQUIRED|||-NONE-|||0\n\n"
        "S The dog .\n"
        "A 1 2|||NN|||dogs|||REQUIRED|||-NONE-|||0\n"
        "A -1 -1|||noop|||-NONE-|||-NONE-|||-NONE-|||1\n\n"
        "S Giant otters is an apex predator .\n"
        "A 2 3|||SVA|||are|||REQUIRED|||-NONE-|||0\n"
        "A 3 4|||ArtOrDet|||-NONE-|||REQUIRED|||-NONE-|||0\n"
        "A 5 6|||NN|||predators|||REQUIRED|||-NONE-|||0\n"
        "A 1 2|||NN|||otter|||REQUIRED|||-NONE-|||1\n"
    )
    sents = parse_m2(m2)
    hyps = ["A cat sat on the mat .", "The dog .", "Giant otters are apex predator ."]
    refs = [[s.edits_of(a) if a in s.annotators else s.edits_of(0) for s in sents] for a in (0, 1)]
    metric = M2()
    stats = metric.statistics([s.source for s in sents], [hyps], refs)
    p, r, f = metric.corpus_prf(stats)
    assert (round(p[0], 4), round(r[0], 4), round(f[0], 4)) == (0.8, 0.8, 0.8)
    assert m2_corpus_prf(stats)[2][0] == pytest.approx(0.8)
    # sentence 2 is scored against annotator 1 (noop), sentence 3 against annotator 0
    assert metric.corpus_best_reference(stats)[0].tolist() == [0, 1, 0]
    m = metric.match([s.source for s in sents], [hyps], refs)[0, 0, 0]
    # the unmatched The -> A is merged with the two unchanged words after it (one 0.001
    # penalty instead of one per arc); m2scorer's verbose output shrinks it back for display
    assert [(e.start, e.end, e.correction) for e in m.hyp_edits] == [
        (0, 3, "A cat sat"), (3, 4, "on"), (4, 4, "the")
    ]
    assert m.hyp_matched == (False, True, True)


def test_overlapping_gold_edits():
    # one annotator, overlapping edits: (1,2) is + (2,2) a, or (1,2) "is a" -- the path
    # maximises matches, so it takes the two small ones; the third stays a false negative
    gold = [G(1, 2, "is"), G(2, 2, "a"), G(1, 2, "is a")]
    assert stats1("This are sentence", "This is a sentence", gold) == (2, 0, 1)
    assert stats1("This are sentence", "This is sentence", gold) == (1, 0, 2)
    # matchSeq scans the gold list left to right: a gold edit listed before an already matched
    # one can no longer be matched
    gold = [G(2, 2, "a"), G(1, 2, "is")]
    assert stats1("This are sentence", "This is a sentence", gold) == (1, 1, 1)


def test_empty_hypothesis_line():
    # everything deleted; the matched deletion splits the rest into two edits
    assert stats1("A b .", "", [G(1, 2, "")]) == (1, 2, 0)
    # without gold the whole sentence is one merged deletion
    assert stats1("A b .", "", []) == (0, 1, 0)


def test_noop_only_gold():
    m2 = "S Fine as it is .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    (sent,) = parse_m2(m2)
    gold = sent.edits_of(0)
    assert gold == ()
    assert stats1(sent.source, sent.source, gold) == (0, 0, 0)
    assert stats1(sent.source, "Fine as it was .", gold) == (0, 1, 0)
    metric = M2()
    st_ = metric.statistics([sent.source], [[sent.source]], [[gold]])
    assert metric.corpus_prf(st_)[2][0] == 1.0  # nothing proposed, nothing to find: P = R = F = 1
    assert metric.prf(st_[0, 0, 0])[0] == 1.0 and metric.prf(st_[0, 0, 0])[1] == 1.0


def test_case_sensitivity():
    assert stats1("the cat sat", "The cat sat", []) == (0, 1, 0)
    assert stats1("the cat sat", "The cat sat", [], ignore_whitespace_casing=True) == (0, 0, 0)
    # matching itself stays case-sensitive
    assert stats1("the cat sat", "The cat sat", [G(0, 1, "the")]) == (0, 1, 1)


def test_transitive_arc_merges_unchanged_words():
    # gold edit spans an unchanged word: only a merged arc (sub + noop + sub) matches it
    gold = [G(0, 3, "x b y")]
    assert stats1("a b c d", "x b y d", gold) == (1, 0, 0)
    assert stats1("a b c d", "x b y d", gold, max_unchanged_words=0) == (0, 2, 1)
    # three unchanged words exceed the default budget of 2
    gold = [G(0, 5, "x b c d y")]
    assert stats1("a b c d e", "x b c d y", gold) == (0, 2, 1)
    assert stats1("a b c d e", "x b c d y", gold, max_unchanged_words=3) == (1, 0, 0)


def test_unmatched_edits_merge_into_one():
    # adjacent unmatched changes become one proposed edit (fewest 0.001 penalties)
    assert stats1("a b c", "x y z", []) == (0, 1, 0)


def test_annotator_choice_rules():
    # running F decides; tie on F and correct -> smaller proposed + beta^2 gold
    assert choose_annotator([(1, 2, 2), (1, 2, 2)], (0, 0, 0), 0.5) == 0
    assert choose_annotator([(0, 2, 4), (0, 1, 8)], (0, 0, 0), 0.5) == 0
    assert choose_annotator([(0, 2, 4), (0, 1, 3)], (0, 0, 0), 0.5) == 1
    assert choose_annotator([(1, 1, 2), (1, 1, 1)], (5, 10, 10), 0.5) == 1


def test_sentm2_mean_of_sentence_f():
    srcs = ["a b", "c d"]
    hyps = [["a x", "c d"]]
    refs = [[(G(1, 2, "x"),), (G(0, 1, "e"),)], [(G(1, 2, "y"),), (G(0, 1, "e"),)]]
    stats = sent_m2().statistics(srcs, hyps, refs)
    # sentence 1: annotator 0, F = 1; sentence 2: no edit proposed, one missed: F = 0
    assert sent_m2().corpus_scores(stats)[0] == pytest.approx(0.5)
    assert sent_m2().best_reference(stats)[0].tolist() == [0, 0]
    # corpus M2: tp 1, fp 0, fn 1 -> P 1, R .5, F0.5 = .8333
    assert M2().corpus_scores(stats)[0] == pytest.approx(1.25 * 0.5 / (0.25 + 0.5))


def test_identical_inputs_share_matches():
    m = M2().match(["a b"], [["a c"], ["a c"]], [[(G(1, 2, "c"),)]])
    assert m[0, 0, 0] is m[1, 0, 0]


# ----------------------------------------------------------------- a literal oracle
def _naive_path(source, hypothesis, gold, maxu=2):
    """m2scorer's steps done literally (O(V^3) Floyd-Warshall on a list, Bellman-Ford)."""
    src, hyp = source.split(), hypothesis.split()
    e1, e2 = _lattice_edges(src, hyp, 1), _lattice_edges(src, hyp, 2)
    verts = sorted({(0, 0), (len(src), len(hyp))} | {x for u, v, _ in e1 + e2 for x in (u, v)})
    E = sorted((u, v) for u, v, _ in e1 + e2)
    info = {(u, v): [1, int(t == NOOP), t] for u, v, t in e1 + e2}
    for vk in verts:
        for vi in verts:
            if (vi, vk) not in info:
                continue
            for vj in verts:
                if (vk, vj) not in info:
                    continue
                d = info[(vi, vk)][0] + info[(vk, vj)][0]
                if (vi, vj) not in info or d < info[(vi, vj)][0]:
                    c = info[(vi, vk)][1] + info[(vk, vj)][1]
                    t1, t2 = info[(vi, vk)][2], info[(vk, vj)][2]
                    if c <= maxu:
                        E.append((vi, vj))
                        info[(vi, vj)] = [d, c, t1 if t1 == t2 else SUB]
    for edge in E:  # removal while iterating, as the original does
        if info[edge][2] == NOOP and info[edge][0] > 1:
            E.remove(edge)
            del info[edge]

    def cor(edge):
        return " ".join(hyp[edge[0][1]:edge[1][1]])

    w = {e: info[e][0] for e in E}
    M, Gs = {}, {}
    for e in E:
        M.setdefault((e[0][0], e[1][0]), []).append(e)
    for s, e, cors in gold:
        Gs.setdefault((s, e), []).append(cors)
    for k in sorted(M):
        Mk, Gk = sorted(M[k]), Gs.get(k, [])
        if k[0] != k[1]:
            for e in Mk:
                if any(cor(e) in g for g in Gk):
                    w[e] = -len(E)
                elif info[e][2] != NOOP:
                    w[e] += EPSILON
            continue
        lo, hi, gl, gr = 0, len(Mk) - 1, 0, len(Gk) - 1
        cur = lo
        while lo <= hi:
            e, hit = Mk[cur], False
            for gi in (range(gl, gr + 1) if cur == lo else reversed(range(gl, gr + 1))):
                if cor(e) in Gk[gi]:
                    hit, w[e] = True, -len(E)
                    gl, gr = (gi + 1, gr) if cur == lo else (gl, gi - 1)
                    break
            if not hit:
                w[e] += EPSILON
                lo, hi, cur = (lo + 1, hi, hi) if cur == lo else (lo, hi - 1, lo)
            elif cur == lo:
                lo += 1
                while lo < len(Mk) and Mk[lo][0] != Mk[cur][1]:
                    w[Mk[lo]] += EPSILON
                    lo += 1
                cur = lo
            else:
                hi -= 1
                while hi >= 0 and Mk[hi][1] != Mk[cur][0]:
                    w[Mk[hi]] += EPSILON
                    hi -= 1
                cur = hi
    dist = {v: float("inf") for v in verts}
    dist[(0, 0)], back = 0, {}
    for _ in range(len(verts) - 1):
        for e in E:
            if dist[e[0]] + w[e] < dist[e[1]]:
                dist[e[1]], back[e[1]] = dist[e[0]] + w[e], e[0]
    v, seq = verts[-1], []
    while v in back:
        u = back[v]
        if info[(u, v)][2] != NOOP:
            seq.append((u[0], v[0], " ".join(src[u[0]:v[0]]), cor((u, v)), TYPE_NAMES[info[(u, v)][2]]))
        v = u
    return seq[::-1], len(E)


def _random_case(rng: random.Random, alpha: str, size: int):
    n = rng.randint(0, size)
    src = [rng.choice(alpha) for _ in range(n)]
    hyp = src[:] if rng.random() < 0.5 else [rng.choice(alpha) for _ in range(rng.randint(0, n + 2))]
    for _ in range(rng.randint(0, 3)):
        op = rng.random()
        if op < 0.3 and hyp:
            hyp.pop(rng.randrange(len(hyp)))
        elif op < 0.6:
            hyp.insert(rng.randint(0, len(hyp)), rng.choice(alpha))
        elif hyp:
            hyp[rng.randrange(len(hyp))] = rng.choice(alpha)
    gold = []
    for _ in range(rng.randint(0, 4)):
        s = rng.randint(0, n)
        e = rng.randint(s, min(n, s + 2))
        cors = tuple(
            " ".join(rng.choice(alpha) for _ in range(rng.randint(0 if e > s else 1, 2)))
            for _ in range(rng.randint(1, 2))
        )
        gold.append((s, e, cors))
    if rng.random() < 0.5:
        gold.sort(key=lambda g: g[:2])
    return " ".join(src), " ".join(hyp), gold, rng.choice([0, 1, 2, 2, 3])


@pytest.mark.parametrize("seed,alpha,size", [(1, "aabbcd", 7), (2, "ab", 8), (3, "abcdefg", 9)])
def test_fast_equals_literal_oracle(seed, alpha, size):
    """Same path edits and len(E) as the literal O(V^3) + Bellman-Ford procedure, ties included."""
    rng = random.Random(seed)
    for _ in range(400):
        src, hyp, gold, maxu = _random_case(rng, alpha, size)
        want, len_e = _naive_path(src, hyp, gold, maxu)
        lat = build_lattice(src, hyp, maxu)
        assert len(lat.order) == len_e
        assert list(score_annotator(lat, gold).hyp_edits) == want, (src, hyp, gold, maxu)


def _literal_bellman_ford(lat: Lattice, weights: list[float]) -> list[int]:
    """m2scorer's ``best_edit_seq_bf`` as written: |V|-1 rounds over ``E`` in list order, the
    predecessor replaced on every strict improvement; the arcs of the path to the last vertex."""
    V = len(lat.verts)
    dist, pred = [float("inf")] * V, [-1] * V
    dist[0] = 0
    for _ in range(V - 1):
        for p, a in enumerate(lat.order):
            c = dist[lat.arc_src[a]] + weights[p]
            if c < dist[lat.arc_dst[a]]:
                dist[lat.arc_dst[a]], pred[lat.arc_dst[a]] = c, a
    path, v = [], V - 1
    while pred[v] >= 0:
        path.append(pred[v])
        v = lat.arc_src[pred[v]]
    return path[::-1]


@pytest.mark.parametrize("seed", range(6))
def test_best_path_replays_bellman_ford_over_many_rounds(seed):
    """best_path (which stops at the first round without an improvement) against the literal
    Bellman-Ford's |V| - 1 rounds, on DAGs whose ``E`` lists arcs in random order (some twice),
    so that vertices improve several times, within a round and across rounds, with tied and
    float-rounded weights: the same path, ties included.  (The lattices of real sentences
    converge within 9 rounds; these take up to |V| - 1.)"""
    rng = random.Random(seed)
    for _ in range(150):
        V = rng.randint(2, 12)
        arcs = sorted({(u, v) for u in range(V) for v in range(u + 1, V) if rng.random() < 0.5} | {(0, V - 1)})
        order = [a for a in range(len(arcs)) for _ in range(1 + (rng.random() < 0.3))]
        rng.shuffle(order)
        out_pos = [[] for _ in range(V)]
        for p, a in enumerate(order):
            out_pos[arcs[a][0]].append(p)
        weights = [rng.choice([1, 2, 3, 1 + EPSILON, 2 + 2 * EPSILON, -len(order)]) for _ in order]
        by_arc = {}
        for p, a in enumerate(order):
            by_arc.setdefault(a, weights[p])
        weights = [by_arc[a] for a in order]  # an arc's weight is the same at each occurrence
        lat = Lattice([], [], [(k, 0) for k in range(V)], [u for u, _ in arcs], [v for _, v in arcs],
                      [1] * len(arcs), [SUB] * len(arcs), [order.count(a) for a in range(len(arcs))], order,
                      [by_arc[a] for a in range(len(arcs))], out_pos)
        assert best_path(lat, {}) == _literal_bellman_ford(lat, weights), (V, arcs, order, weights)


def test_bounded_lattice_agrees_on_counts_mostly():
    rng = random.Random(7)
    agree = total = 0
    for _ in range(300):
        src, hyp, gold, maxu = _random_case(rng, "abcdefg", 9)
        exact = score_annotator(build_lattice(src, hyp, maxu), gold)
        bound = score_annotator(BoundedLattice(src, hyp, maxu), gold)
        total += 1
        agree += (exact.correct, exact.proposed) == (bound.correct, bound.proposed)
    assert agree / total > 0.95


# ----------------------------------------------------------------- the two Levenshtein lattices
def _literal_lattice_edges(src, hyp, cost_sub):
    """levenshtein_matrix + edit_graph as m2scorer states them: the whole (n+1) x (m+1) table,
    every cell's back-pointers to each predecessor reaching its minimum, then the edges reached
    walking back from (n, m)."""
    n, m = len(src), len(hyp)
    D = [[0] * (m + 1) for _ in range(n + 1)]
    back = {}
    for i in range(1, n + 1):
        D[i][0], back[(i, 0)] = i, [((i - 1, 0), 1)]  # DEL
    for j in range(1, m + 1):
        D[0][j], back[(0, j)] = j, [((0, j - 1), 0)]  # INS
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            same = src[i - 1] == hyp[j - 1]
            options = [(D[i - 1][j - 1] + (0 if same else cost_sub), (i - 1, j - 1), NOOP if same else SUB),
                       (D[i - 1][j] + 1, (i - 1, j), 1), (D[i][j - 1] + 1, (i, j - 1), 0)]
            D[i][j] = min(c for c, _, _ in options)
            back[(i, j)] = [(u, t) for c, u, t in options if c == D[i][j]]
    edges, todo, seen = set(), [(n, m)], {(n, m)}
    while todo:
        v = todo.pop()
        for u, t in back.get(v, []):
            edges.add((u, v, t))
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return edges, D[n][m]


def _check_lattice_edges(src, hyp):
    e1, e2 = _lattice_edge_pair(src, hyp)
    for edges, cost in ((e1, 1), (e2, 2)):
        want, _ = _literal_lattice_edges(src, hyp, cost)
        assert len(edges) == len(set(edges)) and set(edges) == want, (src, hyp, cost)
        assert set(_lattice_edges(src, hyp, cost)) == want


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=14), st.lists(st.sampled_from("abcdef"), max_size=14))
def test_lattice_edges_equal_the_literal_tables(src, hyp):
    # short vocabularies give many equal-cost paths; distances beyond the first band (|n - m| + 4)
    # make _distance_rows widen it
    _check_lattice_edges(src, hyp)


def test_lattice_edges_of_far_apart_and_long_texts():
    rng = random.Random(3)
    words = "the a of to in is was an".split()
    for n, m in ((40, 3), (3, 40), (30, 30), (0, 25), (25, 0), (60, 58)):
        src = [rng.choice(words) for _ in range(n)]
        hyp = [rng.choice(words) for _ in range(m)]
        _check_lattice_edges(src, hyp)
        near = src[:5] + ["x"] + src[7:20] + src[21:]  # a typical correction: few edits, a narrow band
        _check_lattice_edges(src, near)


# ----------------------------------------------------------------- property
@st.composite
def reference_case(draw):
    n = draw(st.integers(0, 12))
    src = [f"w{i}" for i in range(n)]
    edits, pos, fresh = [], 0, 0
    while pos <= n:
        s = draw(st.integers(pos, n))
        e = draw(st.integers(s, min(n, s + 3)))
        k = draw(st.integers(0 if e > s else 1, 3))
        if draw(st.booleans()):
            edits.append(G(s, e, " ".join(f"x{fresh + i}" for i in range(k))))
            fresh += k
        pos = e + 1  # at least one unchanged token between gold edits
    return " ".join(src), tuple(edits)


@settings(max_examples=150, deadline=None)
@given(reference_case())
def test_reference_scores_one_against_its_own_gold(case):
    source, gold = case
    ref = apply_edits(source, gold)
    tp, fp, fn = stats1(source, ref, gold)
    assert (fp, fn) == (0, 0) and tp == len(gold)
    # F = 1 against its own gold, also for an empty gold (P = R = 1 by m2scorer's convention).
    assert M2().corpus_scores(np.array([[[[tp, fp, fn]]]]))[0] == 1.0


# ----------------------------------------------------------------- real data
SYSTEMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC"]


# test-all only: CI checks the same official F0.5, P and R of the 12 teams on the statistics it
# computes once per session through the GJG15 dataset (conftest.py::gjg15_m2_official, in
# test_reference_defaults.py::test_gjg15_m2_with_the_default_refset_gives_the_official_conll14_scores);
# this test builds the references from the raw CoNLL-2014 M2 file instead.
@pytest.mark.slow
@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is absent")
def test_conll14_official_scores():
    from gec_meta.data.io import read_lines
    from gec_meta.data.m2 import read_m2

    sents = read_m2(DATA / "conll14" / "conll14st-test.m2", expected=1312)
    refs = [[s.edits_of(a) if a in s.annotators else s.edits_of(0) for s in sents] for a in (0, 1)]
    hyps = [read_lines(DATA / "gjg15/original/official_submissions" / x, expected=1312) for x in SYSTEMS]
    metric = M2()
    stats = metric.statistics([s.source for s in sents], hyps, refs)
    p, r, f = metric.corpus_prf(stats)
    official = {}
    for line in (DATA / "gjg15/nusnlp-gecmetrics/scores/system_scores_metrics/m2score.txt").read_text().splitlines():
        cols = line.split("\t")
        official[cols[3]] = float(cols[4])
    got = {x: round(float(fx), 4) for x, fx in zip(SYSTEMS, f)}
    assert got == {x: official[x] for x in SYSTEMS}
    # P / R of the CoNLL-2014 overview (Ng et al. 2014, Table 4), in percent
    assert round(100 * p[0], 2) == 41.62 and round(100 * r[0], 2) == 21.40  # AMU
    assert round(100 * p[1], 2) == 39.71 and round(100 * r[1], 2) == 30.10  # CAMB


@pytest.mark.slow
@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is absent")
def test_gmeg_slowest_sentence_under_a_second():
    import time

    from gec_meta.data.io import read_lines

    wiki = DATA / "gmeg" / "test" / "wiki"
    source = read_lines(wiki / "source")[693]
    gold = []
    for name in ("amu", "lstm", "lstm-r", "marian", "nus", "transformer"):
        hyp = read_lines(wiki / name)[693]
        t = time.perf_counter()
        m2_sentence(source, hyp, gold)
        assert time.perf_counter() - t < 1.0, name


def test_edit_matching_is_timed_as_a_part_of_its_own():
    """An edit metric's matching of hypothesis and gold edits is a stopwatch part of its own
    (``edit_matching`` in timing.json's ``statistics_parts``), which ``bench/bench_gpu.py`` reports
    apart from PT-M2's weights and their glue."""
    from collections import Counter

    from gec_meta import stopwatch

    before = Counter(stopwatch.TIMES)
    assert stats1("cat sat .", "The cat sat .", [G(0, 0, "The")]) == (1, 0, 0)
    assert stopwatch.since(before).get("edit_matching", 0) > 0
