"""An exact, fast re-implementation of m2scorer 3.2's edit extraction and matching.

m2scorer (Dahlmeier & Ng 2012; ``nusnlp/m2scorer``, ``scripts/levenshtein.py``) finds the
hypothesis edits that best agree with the gold edits of one annotator:

1. **Edit lattice.**  Two token-level Levenshtein matrices of source vs. hypothesis, with
   substitution cost 1 and 2 (``levenshtein_matrix``); the vertices (i, j) and edges that lie on
   some optimal path of either matrix (``edit_graph``, walking back-pointers from (n, m)) are
   merged (``merge_graph``).  An edge is ``del`` (i-1, j) -> (i, j), ``ins`` (i, j-1) -> (i, j)
   or a diagonal ``sub`` / ``noop`` (noop when the tokens are equal).
2. **Transitive arcs** (``transitive_arcs``): a Floyd-Warshall pass adds an arc (u, w) for every
   pair joined by a path of at most ``max_unchanged_words`` noops; the arc's edit replaces
   ``source[u.i:w.i]`` by ``hyp[u.j:w.j]``.  Pure-noop merged arcs are then removed.
3. **Weights** (``set_weights``): an arc whose (start, end, correction) equals one of the gold
   edits gets weight ``-len(E)``; other non-noop arcs get their length plus 0.001.
4. **Search** (``best_edit_seq_bf``): the minimum-weight path from (0, 0) to (n, m) by
   Bellman-Ford; its non-noop arcs are the hypothesis edits.
5. **Matching** (``matchSeq``): hypothesis edits are matched left to right against the gold
   list in file order.

Our implementation computes the same arcs, weights and path, but

* the two Levenshtein tables are filled in one pass and only on the diagonals an optimal path
  can use (a band that widens until it holds the distance; ``_distance_rows``), so every cell
  the back-pointer walk reads on an optimal path has m2scorer's value;
* the Floyd-Warshall pass is run as what it is on this DAG: ``k`` runs through the vertices in
  sorted (= topological) order, and at time ``k`` every arc (i, k) is final while (k, j) can
  only be an original edge; so the transitive arcs from each vertex ``i`` are found by a single
  forward sweep that ends at the furthest vertex reachable within the noop budget (no V^3 loop);
* the search is m2scorer's Bellman-Ford itself, stopped after the first round that improves
  nothing (real lattices converge within 9 rounds) instead of running all |V| - 1.

Every quirk of m2scorer that can change a number is reproduced (each is marked ``QUIRK``):
edges present in both lattices appear twice in ``E`` (``merge_graph`` tests ``e not in V``) and so
get the 0.001 penalty twice; an arc improved twice by Floyd-Warshall is appended to ``E`` twice;
removing noop arcs while iterating over ``E`` skips the element after each removed arc (which
therefore survives); ``len(E)`` (with all of these) is the match bonus; the two-pointer gold
matching of insertions; Bellman-Ford's tie-breaking between equal-weight paths (the
predecessor of a vertex is the one whose relaxation reached the optimum first in Bellman-Ford's
(round, edge position) order); and matchSeq's left-to-right scan without ``break``.  Float
sums are accumulated in the same order as Bellman-Ford, so equal-weight ties are bit-identical.

The one deliberate difference: ``ignore_whitespace_casing`` lower-cases with Python 3's
``str.lower`` (m2scorer used Python 2's ``unicode.lower``; identical except for a few exotic
code points).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Sequence

EPSILON = 0.001  # set_weights' penalty of an unmatched non-noop arc

INS, DEL, SUB, NOOP = 0, 1, 2, 3
TYPE_NAMES = ("ins", "del", "sub", "noop")


# --------------------------------------------------------------------------- lattice
def _distance_rows(src: Sequence[str], hyp: Sequence[str]) -> tuple[list[list[int]], list[list[int]]]:
    """m2scorer's two ``levenshtein_matrix`` distance tables, where a lattice needs them.

    Args:
        src, hyp: token lists of lengths n and m.

    Returns:
        (D1, D2), each shape (n + 1, m + 1): D[i][j] is the edit distance of ``src[:i]`` and
        ``hyp[:j]`` with insertion and deletion cost 1 and substitution cost 1 (D1) or 2 (D2),
        exact in every cell on an optimal path to (n, m); elsewhere at least the distance
        (cells outside the band below hold :data:`_FAR`).

    Written by hand (no library gives m2scorer's tables): a banded Levenshtein (Ukkonen 1985).
    A path through cell (i, j) costs at least ``|i - j|`` there and ``|(n - i) - (m - j)|`` from
    there on (one insertion or deletion per unit of diagonal), so every cell on an optimal path
    of cost ``d`` lies on a diagonal ``k = i - j`` with ``|k| <= d`` and ``|n - m - k| <= d``.
    The tables are computed on those diagonals for a bound ``w``; if D2[n][m] (>= D1[n][m]) is
    within ``w``, ``w`` bounds both distances and each table is exact on its optimal paths (a
    band cell's value is a minimum over band paths: never below the distance, and equal to it
    where an optimal path, all of whose cells are in the band, reaches it); otherwise ``w``
    doubles.  GEC hypotheses are close to their sources: the band is a fraction of the table.
    Where the tokens are equal the diagonal is always a minimum (D[i-1][j-1] exceeds neither
    neighbour by more than the indel cost 1), so only unequal cells compare three values, and
    the two tables share the loop.
    """
    n, m = len(src), len(hyp)
    w = abs(n - m) + 4
    while True:
        k_lo, k_hi = max(-w, n - m - w), min(w, n - m + w)  # band of diagonals k = i - j
        whole = k_lo <= -m and k_hi >= n  # the band is the whole table: exact everywhere
        first = [j if j <= -k_lo else _FAR for j in range(m + 1)]
        D1, D2 = [first], [first]
        p1 = p2 = first
        for i, s in enumerate(src, 1):
            lo, hi = max(1, i - k_hi), min(m, i - k_lo)  # columns of the band in row i
            r1 = [_FAR] * (m + 1)
            if i <= k_hi:
                r1[0] = i
            r2 = r1[:]
            if lo <= hi:
                a1, a2 = r1[lo - 1], r2[lo - 1]
                out1, out2 = [], []
                for h, d1, u1, d2, u2 in zip(hyp[lo - 1:hi], p1[lo - 1:hi], p1[lo:hi + 1], p2[lo - 1:hi], p2[lo:hi + 1]):
                    if s == h:
                        a1, a2 = d1, d2
                    else:
                        if u1 < d1:
                            d1 = u1
                        a1 = (d1 if d1 < a1 else a1) + 1
                        d2 += 1
                        if u2 < d2:
                            d2 = u2
                        a2 = (d2 if d2 < a2 else a2) + 1
                    out1.append(a1)
                    out2.append(a2)
                r1[lo:hi + 1] = out1
                r2[lo:hi + 1] = out2
            D1.append(r1)
            D2.append(r2)
            p1, p2 = r1, r2
        if whole or D2[n][m] <= w:
            return D1, D2
        w *= 2


#: A distance no cell reaches (outside the band of :func:`_distance_rows`).
_FAR = 1 << 40


def _optimal_edges(D: list[list[int]], src: Sequence[str], hyp: Sequence[str],
                   cost_sub: int) -> list[tuple[tuple[int, int], tuple[int, int], int]]:
    """m2scorer's ``edit_graph``: the back-pointers of every vertex on an optimal path to (n, m).

    Args:
        D: shape (n + 1, m + 1), the distance table of ``cost_sub`` (:func:`_distance_rows`).
        src, hyp: token lists of lengths n and m.
        cost_sub: the table's substitution cost.

    Returns:
        list of (u, v, type) with u, v vertices (i, j); each edge appears once.
    """
    n, m = len(src), len(hyp)
    edges = []
    seen = {(n, m)}
    stack = [(n, m)]
    while stack:
        v = stack.pop()
        i, j = v
        preds = []
        if i == 0:
            if j > 0:
                preds.append(((0, j - 1), INS))
        elif j == 0:
            preds.append(((i - 1, 0), DEL))
        else:
            row, up = D[i], D[i - 1]
            d = row[j]
            same = src[i - 1] == hyp[j - 1]
            if up[j - 1] + (0 if same else cost_sub) == d:
                preds.append(((i - 1, j - 1), NOOP if same else SUB))
            if up[j] + 1 == d:
                preds.append(((i - 1, j), DEL))
            if row[j - 1] + 1 == d:
                preds.append(((i, j - 1), INS))
        for u, t in preds:
            edges.append((u, v, t))
            if u not in seen:
                seen.add(u)
                stack.append(u)
    return edges


def _lattice_edges(src: Sequence[str], hyp: Sequence[str], cost_sub: int) -> list[tuple[tuple[int, int], tuple[int, int], int]]:
    """Edges of one Levenshtein lattice (m2scorer's ``levenshtein_matrix`` + ``edit_graph``).

    Args:
        src, hyp: token lists of lengths n and m.
        cost_sub: substitution cost, 1 or 2 (m2scorer builds one lattice with each; insertion
            and deletion cost 1, a match costs 0).

    Returns:
        list of (u, v, type) with u, v vertices (i, j): the back-pointers of every vertex that
        lies on an optimal path to (n, m); each edge appears once.
    """
    D1, D2 = _distance_rows(src, hyp)
    return _optimal_edges(D1 if cost_sub == 1 else D2, src, hyp, cost_sub)


def _lattice_edge_pair(src: Sequence[str], hyp: Sequence[str]) -> tuple[list, list]:
    """(edges of the substitution-cost-1 lattice, of the cost-2 lattice): :func:`_lattice_edges`
    for both costs, the distance tables computed in one pass."""
    D1, D2 = _distance_rows(src, hyp)
    return _optimal_edges(D1, src, hyp, 1), _optimal_edges(D2, src, hyp, 2)


@dataclass
class Lattice:
    """m2scorer's edit graph with transitive arcs, for one (source, hypothesis) pair.

    Vertices are numbered in sorted (i, j) order, which is a topological order.  Arcs are
    numbered 0..A-1.

    Attributes:
        src, hyp: token lists.
        verts: shape (V,), the vertices (i, j), sorted.
        arc_src, arc_dst: shape (A,), vertex indices of every arc.
        arc_dist: shape (A,), the arc's ``dist`` (number of lattice edges it spans).
        arc_type: shape (A,), INS/DEL/SUB/NOOP.
        arc_mult: shape (A,), how many times the arc occurs in m2scorer's final ``E`` list.
        order: arc id of every element of m2scorer's final ``E`` list, in list order
            (len(order) == len(E), the match bonus).
        out_pos: shape (V,), per vertex the positions in ``E`` of the arcs leaving it.
        base_weight: shape (A,), the weight of an arc that matches no gold edit.
        num_events: number of Floyd-Warshall improvements (for the benchmark).
    """

    src: list[str]
    hyp: list[str]
    verts: list[tuple[int, int]]
    arc_src: list[int]
    arc_dst: list[int]
    arc_dist: list[int]
    arc_type: list[int]
    arc_mult: list[int]
    order: list[int]
    base_weight: list[float]
    out_pos: list[list[int]]
    num_events: int = 0
    _spans: dict[tuple[int, int], list[int]] = field(default_factory=dict, repr=False, compare=False)
    _ends: tuple[list[int], list[int]] | None = field(default=None, repr=False, compare=False)

    def order_ends(self) -> tuple[list[int], list[int]]:
        """(tails, heads), each shape (len(E),): the source and target vertex of every element
        of ``E`` (``order``), built once (:func:`best_path` reads them for every annotator)."""
        if self._ends is None:
            self._ends = ([self.arc_src[a] for a in self.order], [self.arc_dst[a] for a in self.order])
        return self._ends

    def span_arcs(self, span: tuple[int, int]) -> list[int]:
        """set_weights' ``M`` of a source span (start, end): the arcs from a vertex (start, *)
        to a vertex (end, *), one per occurrence in ``E``, sorted by (source vertex, target
        vertex); [] if none.  Computed for the spans asked (a sentence's gold edits), not for
        every span of the lattice, and kept."""
        arcs = self._spans.get(span)
        if arcs is None:
            start, end = span
            verts, order, dst = self.verts, self.order, self.arc_dst
            arcs = [a for u in range(bisect_left(verts, (start, -1)), bisect_left(verts, (start + 1, -1)))
                    for a in (order[p] for p in self.out_pos[u]) if verts[dst[a]][0] == end]
            src = self.arc_src
            arcs.sort(key=lambda a: (src[a], dst[a]))
            self._spans[span] = arcs
        return arcs

    def arc_edit(self, a: int) -> tuple[int, int, str, str]:
        """m2scorer's edit tuple (start, end, original, correction) of arc ``a``."""
        (i0, j0), (i1, j1) = self.verts[self.arc_src[a]], self.verts[self.arc_dst[a]]
        return (i0, i1, " ".join(self.src[i0:i1]), " ".join(self.hyp[j0:j1]))

    def arc_correction(self, a: int) -> str:
        j0, j1 = self.verts[self.arc_src[a]][1], self.verts[self.arc_dst[a]][1]
        return " ".join(self.hyp[j0:j1])


class LatticeTooLarge(Exception):
    """The exact transitive-arc construction exceeded its work budget."""


def build_lattice(
    source: str,
    hypothesis: str,
    max_unchanged_words: int = 2,
    max_events: int | None = None,
    edges: tuple[list, list] | None = None,
) -> Lattice:
    """The edit lattice with transitive arcs, exactly as m2scorer's ``batch_multi_pre_rec_f1``
    builds it (``levenshtein_matrix`` x2, ``edit_graph``, ``merge_graph``, ``transitive_arcs``).

    Args:
        source, hypothesis: whitespace-tokenised strings.
        max_unchanged_words: the noop budget of a merged arc (m2scorer's default 2).
        max_events: if given, raise :class:`LatticeTooLarge` once Floyd-Warshall would append
            more than this many transitive arcs to ``E``.
        edges: the two Levenshtein lattices' edges (:func:`_lattice_edge_pair`) if already
            computed.

    Returns:
        a :class:`Lattice`.
    """
    src, hyp = source.split(), hypothesis.split()
    # merge_graph: V sorted union; E = sorted(E1 + E2).  QUIRK: merge_graph's dedup test
    # ``if e not in V`` is always true, so an edge of both lattices is listed twice.
    e1, e2 = edges if edges is not None else _lattice_edge_pair(src, hyp)
    vset = {(0, 0), (len(src), len(hyp))}
    for u, v, _ in e1:
        vset.add(u), vset.add(v)
    for u, v, _ in e2:
        vset.add(u), vset.add(v)
    verts = sorted(vset)
    vid = {v: k for k, v in enumerate(verts)}
    orig = sorted((vid[u], vid[v], t) for u, v, t in e1 + e2)
    V = len(verts)

    # original edges: out-lists (unique) for the sweep.  Arcs (u, v) are keyed by the int
    # u * V + v, events by (k * V + i) * V + j: sorting ~150,000 ints is ~3x faster than tuples.
    out: list[list[tuple[int, int, int]]] = [[] for _ in range(V)]
    arc_key: dict[int, int] = {}
    arc_src: list[int] = []
    arc_dst: list[int] = []
    arc_dist: list[int] = []
    arc_type: list[int] = []
    for u, v, t in orig:
        if u * V + v not in arc_key:
            arc_key[u * V + v] = len(arc_src)
            arc_src.append(u), arc_dst.append(v), arc_dist.append(1), arc_type.append(t)
            out[u].append((v, 1 if t == NOOP else 0, t))
    for lst in out:
        lst.sort()

    # transitive_arcs.  With k in topological order, at Floyd-Warshall time k the arc (i, k)
    # is final and (k, j) is an original edge, so for each i the arcs i -> * are a forward
    # sweep: arc(i, j) = arc(i, k) + edge(k, j) for the first k (in sorted order) giving a
    # strictly shorter dist whose merged noop count is within the budget.  The sweep visits k
    # = i+1, i+2, ... up to the furthest vertex reached so far (every edge goes forward, so a
    # vertex is final when the sweep gets to it), with per-vertex lists instead of a heap and a
    # dict: the same events, 2.7x faster on the largest lattice of CoNLL-2014 (NTHU, sentence 41).
    events: list[int] = []  # (k * V + i) * V + j: each improvement appends (i, j) to E
    trans: list[tuple[int, int, int]] = []  # (i * V + j, dist, type), final, by (i, j)
    maxu = max_unchanged_words
    budget = max_events if max_events is not None else -1
    unreached = [0] * V
    for i in range(V):
        if budget >= 0 and len(events) > budget:
            raise LatticeTooLarge(f"more than {budget} transitive arcs")
        dist, count, kind = unreached[:], unreached[:], unreached[:]  # per vertex; dist 0: not reached
        last = i
        for j, c, t in out[i]:
            dist[j], count[j], kind[j] = 1, c, t
            if j > last:
                last = j
        k = i + 1
        while k <= last:
            dk = dist[k]
            if dk:
                ck, tk = count[k], kind[k]
                nd = dk + 1
                at = (k * V + i) * V
                for j, c, t in out[k]:
                    dj = dist[j]
                    if not dj or nd < dj:
                        nc = ck + c
                        if nc <= maxu:
                            events.append(at + j)
                            dist[j], count[j] = nd, nc
                            kind[j] = tk if tk == t else SUB  # merge_edits: same kind stays, else sub
                            if j > last:
                                last = j
            k += 1
        row = i * V
        for j in range(i + 1, last + 1):
            if dist[j] and row + j not in arc_key:
                trans.append((row + j, dist[j], kind[j]))
    events.sort()
    for key, d, t in trans:
        arc_key[key] = len(arc_src)
        arc_src.append(key // V), arc_dst.append(key % V), arc_dist.append(d), arc_type.append(t)

    # the E list: original edges (sorted, duplicates) then one entry per improvement event.
    # Remove noop arcs of dist > 1 while iterating -- QUIRK: list.remove during iteration
    # skips the element after each removed one (a noop arc is never appended twice: its
    # diagonal path is the first and shortest path found between its ends).
    order = [arc_key[u * V + v] for u, v, _ in orig]
    skip = False
    square = V * V
    for event in events:
        a = arc_key[event % square]  # (k * V + i) * V + j -> i * V + j
        if skip:
            order.append(a)
            skip = False
        elif arc_type[a] == NOOP and arc_dist[a] > 1:
            skip = True
        else:
            order.append(a)

    A = len(arc_src)
    mult = [0] * A
    out_pos: list[list[int]] = [[] for _ in range(V)]
    for p, a in enumerate(order):
        mult[a] += 1
        out_pos[arc_src[a]].append(p)

    base = [0.0] * A
    for a in range(A):
        w = arc_dist[a]
        if arc_type[a] != NOOP:
            for _ in range(mult[a]):  # QUIRK: += EPSILON once per occurrence in E
                w += EPSILON
        base[a] = w
    return Lattice(
        src, hyp, verts, arc_src, arc_dst, arc_dist, arc_type, mult, order, base, out_pos, len(events),
    )


# --------------------------------------------------------------------------- weights
def _gold_weights(lat: Lattice, gold: Sequence[tuple[int, int, tuple[str, ...]]]) -> dict[int, float]:
    """set_weights: the weights that differ from ``lat.base_weight`` for this gold set.

    Args:
        gold: shape (G,), (start, end, corrections) in file order.

    Returns:
        arc id -> weight, for arcs of spans that have gold edits.
    """
    bonus = -len(lat.order)
    by_span: dict[tuple[int, int], list[tuple[str, ...]]] = {}
    for s, e, cors in gold:
        by_span.setdefault((s, e), []).append(cors)
    w: dict[int, float] = {}
    for span, golds in by_span.items():
        Mk = lat.span_arcs(span)
        if not Mk:
            continue
        for a in Mk:
            w[a] = lat.arc_dist[a]
        if span[0] != span[1]:
            # deletion / substitution: every occurrence is matched independently
            for a in Mk:
                cor = lat.arc_correction(a)
                if any(cor in g for g in golds):
                    w[a] = bonus
                elif lat.arc_type[a] != NOOP:
                    w[a] += EPSILON
            continue
        # insertion: QUIRK -- m2scorer's two-pointer scan over the sorted arcs and golds,
        # alternating ends, skipping (and penalising) arcs not adjacent to a matched one.
        src_, dst_ = lat.arc_src, lat.arc_dst
        lptr, rptr = 0, len(Mk) - 1
        cur = lptr
        gl, gr = 0, len(golds) - 1
        while lptr <= rptr:
            a = Mk[cur]
            cor = lat.arc_correction(a)
            matched = False
            idx = range(gl, gr + 1) if cur == lptr else reversed(range(gl, gr + 1))
            for gi in idx:
                if cor in golds[gi]:
                    matched = True
                    w[a] = bonus
                    if cur == lptr:
                        gl = gi + 1
                    else:
                        gr = gi - 1
                    break
            if not matched and lat.arc_type[a] != NOOP:
                w[a] += EPSILON
            if matched:
                if cur == lptr:
                    lptr += 1
                    while lptr < len(Mk) and src_[Mk[lptr]] != dst_[Mk[cur]]:
                        w[Mk[lptr]] += EPSILON
                        lptr += 1
                    cur = lptr
                else:
                    rptr -= 1
                    while rptr >= 0 and dst_[Mk[rptr]] != src_[Mk[cur]]:
                        w[Mk[rptr]] += EPSILON
                        rptr -= 1
                    cur = rptr
            elif cur == lptr:
                lptr += 1
                cur = rptr
            else:
                rptr -= 1
                cur = lptr
    return w


# --------------------------------------------------------------------------- search
def best_path(lat: Lattice, override: dict[int, float]) -> list[int]:
    """The arcs of m2scorer's best edit path (``best_edit_seq_bf``), from (0, 0) to (n, m).

    m2scorer's Bellman-Ford as it is written: rounds of relaxations over ``E`` in list order, the
    predecessor replaced on every strict improvement, so every tie and every float sum is
    m2scorer's.  It stops after the first round that improves nothing, where m2scorer goes on
    to |V| - 1 rounds: a round that changes nothing leaves the same distances for the next one,
    which therefore changes nothing either.  The lattices of real data converge within a few
    rounds (at most 9 over the 44,615 searches of GJG15, SEEDA and GMEG-Wiki/FCE, 3 for the
    largest, 155,461 arcs), so this is faster than what the function did before, replaying
    through a heap only the relaxations that could change something: the same paths, 1.7 s
    instead of 3.0 s for all those searches.

    Args:
        lat: the lattice.
        override: arc id -> weight for arcs whose weight differs from ``lat.base_weight``.

    Returns:
        arc ids of the path, in source order.
    """
    V = len(lat.verts)
    inf = float("inf")
    dist = [inf] * V
    dist[0] = 0
    pred = [-1] * V
    base = lat.base_weight
    order = lat.order
    src_ = lat.arc_src
    weights = [override.get(a, base[a]) for a in order] if override else [base[a] for a in order]
    tails, heads = lat.order_ends()
    for _ in range(V - 1):
        improved = False
        for u, v, w, a in zip(tails, heads, weights, order):
            c = dist[u] + w
            if c < dist[v]:
                dist[v] = c
                pred[v] = a
                improved = True
        if not improved:
            break
    path = []
    w = V - 1
    while True:
        a = pred[w]
        if a < 0:
            break
        path.append(a)
        w = src_[a]
    path.reverse()
    return path


def _ignore_ws_case(orig: str, cor: str) -> bool:
    return orig.replace(" ", "").lower() == cor.replace(" ", "").lower()


@dataclass(frozen=True)
class M2Result:
    """m2scorer's outcome for one (source, hypothesis, annotator).

    Attributes:
        hyp_edits: shape (H,), the path edits (start, end, original, correction, type name),
            in source order, after the ``ignore_whitespace_casing`` filter.
        hyp_matched: shape (H,), True if matchSeq matched the edit to at least one gold edit.
        gold_matched: shape (G,), the gold alternative matched by a hypothesis edit, or None.
        correct: len(matchSeq(...)): matched (hypothesis, gold) pairs.
        proposed: H.
        gold: G.
    """

    hyp_edits: tuple[tuple[int, int, str, str, str], ...]
    hyp_matched: tuple[bool, ...]
    gold_matched: tuple[str | None, ...]
    correct: int
    proposed: int
    gold: int


def path_edits(lat: "Lattice | BoundedLattice", gold: Sequence[tuple[int, int, tuple[str, ...]]]) -> list[tuple[int, int, str, str, str]]:
    """The hypothesis edits m2scorer chooses for one annotator: (start, end, orig, cor, type).

    Args:
        lat: from :func:`make_lattice`.
        gold: shape (G,), (start, end, corrections) in file order.

    Returns:
        the non-noop arcs of the best path, in source order.
    """
    if isinstance(lat, BoundedLattice):
        return lat.path_edits(gold)
    out = []
    for a in best_path(lat, _gold_weights(lat, gold)):
        t = lat.arc_type[a]
        if t != NOOP:
            out.append(lat.arc_edit(a) + (TYPE_NAMES[t],))
    return out


def score_annotator(
    lat: "Lattice | BoundedLattice",
    gold: Sequence[tuple[int, int, tuple[str, ...]]],
    ignore_whitespace_casing: bool = False,
) -> M2Result:
    """set_weights + best_edit_seq_bf + matchSeq for one annotator's gold edits.

    Args:
        lat: from :func:`make_lattice` (or :func:`build_lattice`).
        gold: shape (G,), (start, end, corrections) of the annotator's non-noop edits in file
            order; a correction ``''`` is a deletion.
        ignore_whitespace_casing: drop path edits that only change case or whitespace
            (m2scorer filters the path after the search, before matching).
    """
    edits = [
        e for e in path_edits(lat, gold)
        if not (ignore_whitespace_casing and _ignore_ws_case(e[2], e[3]))
    ]
    # matchSeq: scan gold from last_index; QUIRK: no break, one edit may match several golds
    hyp_matched = [False] * len(edits)
    gold_matched: list[str | None] = [None] * len(gold)
    correct = 0
    last = 0
    for h, (s, e, _, c, _) in enumerate(edits):
        for gi in range(last, len(gold)):
            gs, ge, cors = gold[gi]
            if gs == s and ge == e and c in cors:
                correct += 1
                last = gi + 1
                hyp_matched[h] = True
                gold_matched[gi] = c
    return M2Result(tuple(edits), tuple(hyp_matched), tuple(gold_matched), correct, len(edits), len(gold))


def m2_sentence(
    source: str,
    hypothesis: str,
    gold: Sequence[tuple[int, int, tuple[str, ...]]],
    max_unchanged_words: int = 2,
    ignore_whitespace_casing: bool = False,
) -> M2Result:
    """Convenience: :func:`build_lattice` + :func:`score_annotator`."""
    return score_annotator(make_lattice(source, hypothesis, max_unchanged_words), gold, ignore_whitespace_casing)


# --------------------------------------------------------------------------- corpus rules
def comp_f1(c: float, e: float, g: float, beta: float) -> float:
    """m2scorer's ``comp_f1`` on counts: (1+b^2) c / (b^2 g + e); on 0/0, 1 if c == 0 else 0.

    Used (with exactly this float arithmetic) for the per-sentence annotator choice.
    """
    try:
        return (1 + beta * beta) * c / (beta * beta * g + e)
    except ZeroDivisionError:
        return 1.0 if c == 0.0 else 0.0


def choose_annotator(
    cand: Sequence[tuple[float, float, float]], total: tuple[float, float, float], beta: float
) -> int:
    """m2scorer's ``batch_multi_pre_rec_f1`` annotator choice for one sentence.

    Args:
        cand: shape (R,), (correct, proposed, gold) of each annotator on this sentence, in
            annotator order.
        total: running (correct, proposed, gold) of the previous sentences (zeros for a
            sentence-level choice, as PT-M2's sentm2 does).
        beta: F beta.

    Returns:
        index of the annotator maximising F of (total + this sentence); ties: more correct,
        then smaller proposed + beta^2 gold; then the first one.
    """
    sq = beta * beta
    f_max, c_max, e_min, g_min = -1.0, -1.0, float("inf"), float("inf")
    chosen = 0
    for k, (c, e, g) in enumerate(cand):
        c, e, g = total[0] + c, total[1] + e, total[2] + g
        f = comp_f1(c, e, g, beta)
        if (
            f_max < f
            or (f_max == f and c_max < c)
            or (f_max == f and c_max == c and e_min + sq * g_min > e + sq * g)
        ):
            chosen, f_max, c_max, e_min, g_min = k, f, c, e, g
    return chosen


# --------------------------------------------------------------------------- the bound
#: Most transitive arcs built exactly.  Floyd-Warshall appends one arc to ``E`` per
#: improvement; the largest count in CoNLL-2014 (12 systems) and GMEG-Wiki test is 153,190
#: (NTHU, sentence 41: ~1 s, and m2scorer's own O(V^3) pass there is 780^3 = 4.7e8 steps).
#: Beyond the budget m2scorer itself cannot finish (GMEG-Wiki test sentence 694, Marian:
#: 13,929 vertices, 8.4 million arcs, i.e. ~3e12 Floyd-Warshall steps), and we use
#: :class:`BoundedLattice`.  Lattices of more than ``MAX_EXACT_VERTICES`` vertices (the
#: largest exact one in these data has 780) go to the bound without trying.
EXACT_EVENT_BUDGET = 300_000
MAX_EXACT_VERTICES = 3_000


class BoundedLattice:
    """The fallback for lattices too large for the exact construction.

    Same objective as m2scorer, without materialising the transitive arcs: a shortest path
    over the *original* lattice edges whose states remember the open merged edit (its noop
    count, whether it changes anything, whether it is a single edge).  A path is a sequence of
    noop edges (weight 1), unmatched merged edits (number of edges + 0.001; a single edge of
    both lattices + 0.002, as in m2scorer) of at most ``max_unchanged_words`` noops, and
    gold-matched arcs (weight ``-bonus``, any lattice path between the ends with at most
    ``max_unchanged_words`` noops).  It differs from m2scorer only in what m2scorer's
    iteration order decides: which of several shortest paths Floyd-Warshall keeps for an arc,
    the doubled penalty of arcs Floyd-Warshall appends twice, ``len(E)`` as the bonus and
    Bellman-Ford's choice among equal-weight paths.

    Attributes:
        src, hyp: token lists.
        verts: sorted vertices; out: per vertex index, (target index, type, multiplicity).
    """

    def __init__(self, source: str, hypothesis: str, max_unchanged_words: int = 2,
                 edges: tuple[list, list] | None = None):
        self.src, self.hyp = source.split(), hypothesis.split()
        self.maxu = max_unchanged_words
        e1, e2 = edges if edges is not None else _lattice_edge_pair(self.src, self.hyp)
        mult: dict[tuple, int] = {}
        typ: dict[tuple, int] = {}
        for u, v, t in e1 + e2:
            mult[(u, v)] = mult.get((u, v), 0) + 1
            typ[(u, v)] = t
        self.verts = sorted({(0, 0), (len(self.src), len(self.hyp))} | {x for uv in mult for x in uv})
        self.vid = {v: k for k, v in enumerate(self.verts)}
        self.out: list[list[tuple[int, int, int]]] = [[] for _ in self.verts]
        for (u, v), m in sorted(mult.items()):
            self.out[self.vid[u]].append((self.vid[v], typ[(u, v)], m))
        self.bonus = float(len(e1) + len(e2) + len(self.verts))  # dominates any path's length

    def _min_noops(self, u: int, w: int) -> int:
        """Fewest noop edges on a lattice path u -> w (a large number if there is none)."""
        big = 1 << 30
        best = {u: 0}
        wi, wj = self.verts[w]
        for x in range(u, w):
            bx = best.get(x)
            if bx is None:
                continue
            for y, t, _ in self.out[x]:
                yi, yj = self.verts[y]
                if yi <= wi and yj <= wj:
                    c = bx + (t == NOOP)
                    if c < best.get(y, big):
                        best[y] = c
        return best.get(w, big)

    def _matched_arcs(self, gold) -> dict[int, list[int]]:
        arcs: dict[int, set[int]] = {}
        for s, e, cors in gold:
            for cor in cors:
                ctoks = cor.split()
                for u, (ui, uj) in enumerate(self.verts):
                    if ui != s:
                        continue
                    w = self.vid.get((e, uj + len(ctoks)))
                    if w is None or w == u or self.hyp[uj:uj + len(ctoks)] != ctoks:
                        continue
                    if self.src[s:e] == ctoks:
                        continue  # a noop arc is never a proposed edit
                    if self._min_noops(u, w) <= self.maxu:
                        arcs.setdefault(u, set()).add(w)
        return {u: sorted(ws) for u, ws in arcs.items()}

    def path_edits(self, gold) -> list[tuple[int, int, str, str, str]]:
        """Best path edits (start, end, orig, cor, type) for one annotator's gold edits."""
        V = len(self.verts)
        inf = float("inf")
        matched = self._matched_arcs(gold)
        closed: list[tuple[float, tuple | None]] = [(inf, None)] * V
        closed[0] = (0.0, None)
        opens: list[dict[tuple[int, int, int], tuple[float, tuple]]] = [dict() for _ in range(V)]
        maxu = self.maxu
        for v in range(V):
            cv, bv = closed[v]
            for key, (cost, _) in opens[v].items():
                if key[1]:
                    cc = cost + EPSILON * (key[2] if key[2] else 1)
                    if cc < cv:
                        cv, bv = cc, ("close", key)
            closed[v] = (cv, bv)
            if cv < inf:
                for x, t, m in self.out[v]:
                    if t == NOOP and cv + 1 < closed[x][0]:
                        closed[x] = (cv + 1, ("noop", v))
                    key = (1, 0, m) if t == NOOP else (0, 1, m)
                    old = opens[x].get(key)
                    if old is None or cv + 1 < old[0]:
                        opens[x][key] = (cv + 1, ("start", v))
                for w in matched.get(v, ()):
                    if cv - self.bonus < closed[w][0]:
                        closed[w] = (cv - self.bonus, ("match", v))
            for key, (cost, _) in opens[v].items():
                for x, t, _m in self.out[v]:
                    c2 = key[0] + (t == NOOP)
                    if c2 > maxu:
                        continue
                    key2 = (c2, 1 if (key[1] or t != NOOP) else 0, 0)
                    old = opens[x].get(key2)
                    if old is None or cost + 1 < old[0]:
                        opens[x][key2] = (cost + 1, ("ext", v, key))
        # backtrack
        edits = []
        v = V - 1
        while True:
            back = closed[v][1]
            if back is None:
                break
            if back[0] == "noop":
                v = back[1]
            elif back[0] == "match":
                edits.append(self._edit(back[1], v))
                v = back[1]
            else:  # close: walk the open segment back to its start
                end, key = v, back[1]
                while True:
                    b = opens[v][key][1]
                    if b[0] == "ext":
                        v, key = b[1], b[2]
                    else:
                        v = b[1]
                        break
                edits.append(self._edit(v, end))
        edits.reverse()
        return edits

    def _edit(self, u: int, w: int) -> tuple[int, int, str, str, str]:
        (i0, j0), (i1, j1) = self.verts[u], self.verts[w]
        t = "ins" if i0 == i1 else ("del" if j0 == j1 else "sub")
        return (i0, i1, " ".join(self.src[i0:i1]), " ".join(self.hyp[j0:j1]), t)


def make_lattice(
    source: str, hypothesis: str, max_unchanged_words: int = 2, max_events: int = EXACT_EVENT_BUDGET
) -> "Lattice | BoundedLattice":
    """m2scorer's exact lattice, or :class:`BoundedLattice` when it exceeds ``max_events``
    transitive arcs or :data:`MAX_EXACT_VERTICES` vertices."""
    src, hyp = source.split(), hypothesis.split()
    edges = _lattice_edge_pair(src, hyp)  # once, for the size test and whichever lattice is built
    if (len(src) + 1) * (len(hyp) + 1) > MAX_EXACT_VERTICES:
        nv = len({x for u, v, _ in edges[1] for x in (u, v)})
        if nv > MAX_EXACT_VERTICES:
            return BoundedLattice(source, hypothesis, max_unchanged_words, edges=edges)
    try:
        return build_lattice(source, hypothesis, max_unchanged_words, max_events=max_events, edges=edges)
    except LatticeTooLarge:
        return BoundedLattice(source, hypothesis, max_unchanged_words, edges=edges)
