"""m2scorer's matches on disk: each (source, hypothesis, annotator's gold edits) computed once.

M2's edit lattice and search (:mod:`gec_meta.edits.m2scorer`) are the expensive part of every
metric of the M2 family (GJG15: ~3 s on two cores, ~6 s of CPU, a metric, 2026-11-30): M2 and
SentM2, PT-M2 and sentence PT-M2.  What they compute depends on the source, the hypothesis, the
annotator's gold edits (start, end, corrections) and two options of m2scorer
(``max_unchanged_words``, ``ignore_whitespace_casing``) -- never on beta, the corpus or sentence
rule, or PT-M2's scorer and encoder.  So every metric of the family, at every beta and with
every encoder, reads the same matches: :class:`M2MatchStore` keeps them in a
:class:`~gec_meta.cache.KeyValueStore` whose namespace names the two options and the code
version of this module's import closure, keyed by the hash of (source, hypothesis, gold edits).

A stored match is plain data, :data:`Stored`: the hypothesis path's edits (start, end,
correction, type name), whether each matched a gold edit, and the gold alternative each gold
edit matched (None: missed).  The gold edits' types (not read by m2scorer's matching) are
taken from the references at hand when the match is built (:func:`gold_key`).
"""

from __future__ import annotations

import functools
import hashlib
from typing import Sequence

from gec_meta.cache.code import computing_code_version
from gec_meta.edits.m2scorer import make_lattice, score_annotator
from gec_meta.edits.stored import StoredExtractor
from gec_meta.parallel import parallel_map

#: (start, end, type, corrections) of each non-noop gold edit of an annotator, in file order.
GoldKey = tuple[tuple[int, int, str, tuple[str, ...]], ...]

#: One stored match: hypothesis edits (start, end, correction, type), matched flags (one per
#: hypothesis edit), the gold alternative matched (one per gold edit; None: missed).
Stored = tuple[tuple[tuple[int, int, str, str], ...], tuple[bool, ...], tuple["str | None", ...]]

#: Work (characters of the source x characters of the hypothesis, summed over the distinct
#: (sentence, hypothesis) lattices) from which the matching starts worker processes: ~0.15 s
#: of lattices in one process (2-3e-8 CPU s per unit on GJG15 slices, AMD EPYC); a 2-worker
#: pool costs ~30 ms of CPU to start and stop, and moving the matches back ~4% of the work.
MIN_PARALLEL_WORK = 5_000_000


def gold_key(gold: Sequence) -> GoldKey:
    """(start, end, type, corrections) of the non-noop gold edits, in order.

    m2scorer drops noop edits and edits with negative offsets (``load_annotation``).
    """
    out = []
    for g in gold:
        if g.start < 0 or g.end < 0 or getattr(g, "type", "") == "noop":
            continue
        out.append((int(g.start), int(g.end), str(getattr(g, "type", "")), tuple(g.corrections)))
    return tuple(out)


def _matched_part(gold: GoldKey) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """What m2scorer's search and matching read of the gold edits: (start, end, corrections)."""
    return tuple((s, e, c) for s, e, _, c in gold)


def _match(lat, gold: GoldKey, ignore_whitespace_casing: bool) -> Stored:
    res = score_annotator(lat, _matched_part(gold), ignore_whitespace_casing)
    return (tuple((s, e, c, t) for s, e, _, c, t in res.hyp_edits), res.hyp_matched, res.gold_matched)


def _match_items(context, ks: list[int]) -> list[list[Stored]]:
    """:func:`~gec_meta.parallel.parallel_map` task: for every item k = (sentence n,
    normalised hypothesis) of ``ks``, its match against each annotator's gold edits, shape (R,)
    (context: max_unchanged_words, ignore_whitespace_casing, sources, golds, items; golds: shape
    (R, N) of :data:`GoldKey`)."""
    max_unchanged_words, ignore_whitespace_casing, sources, golds, items = context
    out = []
    for k in ks:
        n, hyp = items[k]
        lat = make_lattice(sources[n], hyp, max_unchanged_words)
        results: dict[GoldKey, Stored] = {}  # identical gold edits (e.g. a copied annotator): one search
        row = []
        for ref in golds:
            gold = ref[n]
            m = results.get(gold)
            if m is None:
                m = results[gold] = _match(lat, gold, ignore_whitespace_casing)
            row.append(m)
        out.append(row)
    return out


def _part(text: str) -> bytes:
    """One part of :func:`~gec_meta.cache.text_hash`'s input: its UTF-8 length, then the text."""
    data = text.encode("utf-8")
    return len(data).to_bytes(8, "little") + data


def match_keys(sources: Sequence[str], golds: Sequence[Sequence[GoldKey]],
               items: Sequence[tuple[int, str]]) -> list[list[str]]:
    """The store key of every (item, annotator), shape (K, R): ``text_hash(source, hypothesis,
    repr(gold))`` of the matched part of the gold edits (start, end, corrections), computed with
    each (source, hypothesis) hashed once and each annotator's gold of a sentence encoded once
    (sha256's ``copy``: a GJG15 run's ~15,000 keys in a third of the time of separate hashes)."""
    gold_parts = [[_part(repr(_matched_part(g))) for g in row] for row in golds]  # (R, N)
    out = []
    for n, hyp in items:
        head = hashlib.sha256(_part(sources[n]))
        head.update(_part(hyp))
        row = []
        for parts in gold_parts:
            h = head.copy()
            h.update(parts[n])
            row.append(h.hexdigest())
        out.append(row)
    return out


def _well_formed(value, n_gold: int) -> bool:
    """Whether a value read from the store has :data:`Stored`'s shape for ``n_gold`` gold edits
    (entries are sealed and checked on read; this guards the indexing below against an entry
    written by other code)."""
    try:
        hyp, matched, gold = value
        return (len(matched) == len(hyp) and len(gold) == n_gold
                and all(len(e) == 4 and type(e[0]) is int and type(e[1]) is int and isinstance(e[2], str)
                        and isinstance(e[3], str) for e in hyp)
                and all(isinstance(b, bool) for b in matched)
                and all(g is None or isinstance(g, str) for g in gold))
    except (TypeError, ValueError):
        return False


class M2MatchStore(StoredExtractor):
    """m2scorer's matches of (source, hypothesis, gold edits), on disk (module docstring).

    Use :func:`m2_match_store` (one per option pair and process).

    Args:
        max_unchanged_words: m2scorer's ``--max_unchanged_words``.
        ignore_whitespace_casing: m2scorer's ``--ignore_whitespace_casing``.
    """

    def __init__(self, max_unchanged_words: int, ignore_whitespace_casing: bool):
        self.max_unchanged_words = int(max_unchanged_words)
        self.ignore_whitespace_casing = bool(ignore_whitespace_casing)
        self._store = None

    def namespace(self) -> str:
        return (f"m2-matches|max_unchanged_words:{self.max_unchanged_words}"
                f"|ignore_whitespace_casing:{int(self.ignore_whitespace_casing)}"
                f"|code:{computing_code_version(__name__)}")

    def matches(self, sources: Sequence[str], golds: Sequence[Sequence[GoldKey]],
                items: Sequence[tuple[int, str]], threads: int | None = None) -> list[list[Stored]]:
        """The match of every item against every annotator, computing (in up to ``threads``
        worker processes) only those the store lacks.

        Args:
            sources: shape (N,), whitespace-normalised sources (``" ".join(s.split())``).
            golds: shape (R, N), each annotator's :data:`GoldKey` of each sentence.
            items: shape (K,), distinct (sentence n, whitespace-normalised hypothesis).
            threads: CPU threads (caps the worker processes; None: the job's cores).

        Returns:
            shape (K, R): each item's :data:`Stored` match per annotator.
        """
        keys = match_keys(sources, golds, items)
        store = self.store
        values = [[store.get(key) for key in row] for row in keys]  # each lookup counted (timing.json)
        todo_items = [k for k, row in enumerate(values)
                      if not all(_well_formed(v, len(golds[r][items[k][0]])) for r, v in enumerate(row))]
        if todo_items:
            todo_keys = list(dict.fromkeys(key for k in todo_items for key in keys[k]))
            done: set[int] = set()

            def compute() -> None:
                sub = [items[k] for k in todo_items]
                # Work of an item ~ lattice size: source length x hypothesis length.
                work = [(len(sources[n]) + 1) * (len(hyp) + 1) for n, hyp in sub]
                context = (self.max_unchanged_words, self.ignore_whitespace_casing, sources, golds, sub)
                rows = parallel_map(_match_items, len(sub), context, threads=threads, work=work,
                                    min_work=MIN_PARALLEL_WORK, desc="M2 lattices", unit="lattice")
                for k, row in zip(todo_items, rows):
                    values[k] = row
                    done.add(k)
                    for key, m in zip(keys[k], row):
                        store.put(key, m)

            # Two metrics of the family on one dataset started together search these lattices once.
            self._compute_once(todo_keys, compute, "m2-matches-computed", "M2 lattice batches")
            for k in todo_items:
                if k not in done:  # another live job computed them (counted as misses above)
                    values[k] = [store.peek(key) for key in keys[k]]
        return values


@functools.lru_cache(maxsize=8)
def m2_match_store(max_unchanged_words: int, ignore_whitespace_casing: bool) -> M2MatchStore:
    """The process-wide store of one option pair (its folder follows ``GEC_META_CACHE``)."""
    return M2MatchStore(max_unchanged_words, ignore_whitespace_casing)
