"""Exact speed-ups of spaCy's English pipeline, for ERRANT's parses.

ERRANT needs ``tag_``, ``pos_``, ``lemma_`` and ``dep_`` of every token, i.e. spaCy's tagger,
parser, attribute ruler and lemmatizer.  Four steps of that pipeline cost more than they need
to; the replacements give the same annotations (tested token by token
against the unmodified pipeline on all 27,405 distinct texts of the benchmarks and reference
sets, ``tests/test_spacy_speed.py``).  ``GEC_META_SPACY_SPEEDUPS=0`` turns them off.

1. **Matrix products.** thinc's ``NumpyOps`` multiplies with blis, whose generic kernel reached
   ~34 GFLOP/s a core on every host measured, while numpy's OpenBLAS (the same float32 sgemm)
   picks a kernel for the CPU: ~95 GFLOP/s on one thread of one 2-core host (the tok2vec CNN,
   almost all matrix products, ~3x faster), ~35 on another whose cores (first-generation EPYC,
   AVX2 on 128-bit units) both libraries already run at their limit, where it gains nothing and
   costs nothing (bench/RESULTS.md, sessions 19 and 20).  ``NumpyOps(use_blis=False)`` is
   thinc's own switch for this.  Like any change of BLAS kernel
   (blis itself picks one per CPU), the products may differ in the last bits of float32; the
   annotations (argmax of tag and parser scores) were identical on every benchmark text.
2. **Attribute ruler matching.** spaCy's ``Matcher`` has no index over token attributes: it
   tests every one of the English model's 179 patterns on every token (~18 us a token, as much
   as the parser).  :func:`index_attribute_ruler` replaces only the ruler's ``match`` step with
   an index on one equality/IN value of the first token spec and evaluates the patterns'
   predicates on ``Doc.to_array`` ids (~10x faster); it returns the matches in the ruler's own
   format, and the ruler's own ``set_annotations`` applies them in its precedence order.
   Patterns outside the predicate subset understood here (operators, other attributes or
   predicates) go to a spaCy ``Matcher`` holding just those patterns, so any model stays exact.
3. **Lemmas.** :func:`memoise_lemmatizer` memoises every answer of the rule lemmatizer by the
   key spaCy's own cache uses (see :func:`_memo_lemmatize_call`), and gives its word index sets
   instead of lists: spaCy's ``rule_lemmatize`` asks ``form in index`` of the English index, a
   list of up to 57,528 words per part of speech, i.e. a linear scan (~300 us a new word, ~20%
   of a parse of 3,000 fresh GJG15 texts); a set answers the same membership question in O(1).
4. **Token vectors once per distinct context.** The tok2vec CNN (embedding, then four residual
   window-1 convolutions) gives a token a vector that is a function of the nine tokens around it
   (fewer at a text's edge).  A GEC benchmark parses a source together with every system's
   output of it, texts that differ in a few words: in a batch, most tokens' contexts recur (SEEDA
   Base: 48% of its 51,064 tokens have a distinct nine-token window, 24% a distinct three-token
   one).  :func:`dedup_token_vectors` runs the same layers on each distinct context once
   (:class:`_ContextDedup`): about half of the parse's most expensive step.

Also three changes of loading, not of the annotations: :func:`import_spacy_lean`
(spaCy's import: ~1.4 s less), :func:`index_entry_points` (catalogue's registry lookups:
~0.05 s less) and :func:`pretokenised_load_options` (the model without its rule tokenizer,
which ERRANT's parse of whitespace-tokenised text never runs: ~0.4 s less).
"""

from __future__ import annotations

import re
import sys
from typing import Any

# Token attributes the index understands, as read by ``Doc.to_array`` (column order).
_COLUMNS = ("TAG", "LOWER", "DEP", "IS_SPACE")  # __call__ unpacks rows in this order
_COL = {name: i for i, name in enumerate(_COLUMNS)}


def spacy_speedups() -> bool:
    """Whether these speed-ups apply (default yes; ``GEC_META_SPACY_SPEEDUPS=0`` runs spaCy's
    pipeline unmodified, e.g. to re-check that both give the same edits).  Recorded in every
    result signature (:func:`gec_meta.meta.signature.versions`)."""
    import os

    return os.environ.get("GEC_META_SPACY_SPEEDUPS", "1") not in ("0", "false", "no")


def import_spacy_lean() -> None:
    """Import spaCy without letting thinc import PyTorch, and without spaCy's command line.

    1. ``thinc.compat`` imports torch (~1 s, most of spaCy's import time) only to offer PyTorch
       wrapper layers and GPU support; the English CNN pipeline uses neither, and thinc has no
       switch for it.  While spaCy is imported, ``sys.modules["torch"] = None`` makes thinc's
       ``import torch`` fail fast (thinc then records ``has_torch = False``); the entry is
       removed afterwards, so a later ``import torch`` (the neural metrics) works normally.
    2. ``spacy/__init__.py`` imports its command line (``from .cli.info import info``: typer,
       rich, jinja2, weasel, requests -- ~0.4 s of the remaining ~1.3 s on a 2-core EPYC host,
       2026-11-29) only to offer ``spacy.info``.  While spaCy is imported, placeholder modules
       stand for ``spacy.cli`` and ``spacy.cli.info``, whose ``info`` imports the real one when
       called; they are removed afterwards, and the ``spacy`` module gets a module
       ``__getattr__`` (PEP 562) that imports the real ``spacy.cli`` when ``spacy.cli`` is first
       read: ``import spacy.cli``, ``spacy.cli.download(...)`` and ``spacy.info()`` work as
       before (tests/test_spacy_speed.py).

    Does nothing if spaCy or torch is already imported.
    """
    if "spacy" in sys.modules or "torch" in sys.modules:
        return
    import types

    cli = types.ModuleType("spacy.cli")
    cli.__path__ = []  # a package: ``spacy.cli.info`` can be imported below it
    cli_info = types.ModuleType("spacy.cli.info")
    cli_info.info = _real_spacy_info  # type: ignore[attr-defined]
    placeholders = {"torch": None, "spacy.cli": cli, "spacy.cli.info": cli_info}
    sys.modules.update(placeholders)  # type: ignore[arg-type]
    try:
        import spacy
    finally:
        for name, module in placeholders.items():
            if sys.modules.get(name, 0) is module:
                del sys.modules[name]
    if spacy.__dict__.get("cli") is cli:
        del spacy.cli
        spacy.__getattr__ = _spacy_cli_on_demand(spacy.__dict__.get("__getattr__"))  # type: ignore[attr-defined]


def index_entry_points() -> None:
    """Give catalogue (the registries of spaCy and thinc) its entry points grouped by group.

    catalogue reads the environment's entry points once, at import, into
    ``catalogue.AVAILABLE_ENTRY_POINTS``; every registry lookup then asks it for one group with
    ``select(group=...)``, a scan of all of them (~900 in a venv with torch and transformers).
    Loading the English model makes ~180 such lookups (~0.05 s of a ~0.3 s load on a 2-core EPYC
    host, 2026-11-29).  catalogue also accepts a plain dict ``{group: [entry points]}`` (the
    form ``importlib.metadata.entry_points()`` returned before Python 3.10) and then looks the
    group up: the same entry points in the same order, so every lookup finds what it found
    before.  Done once; a later call (or another library's replacement) is left alone."""
    import catalogue

    available = getattr(catalogue, "AVAILABLE_ENTRY_POINTS", None)
    if available is None or not hasattr(available, "select") or not hasattr(available, "groups"):
        return
    catalogue.AVAILABLE_ENTRY_POINTS = {group: list(available.select(group=group)) for group in available.groups}


def _real_spacy_info(*args, **kwargs):
    """``spacy.info`` while the command line is not imported: spaCy's own, imported now."""
    from spacy.cli.info import info

    return info(*args, **kwargs)


def _spacy_cli_on_demand(previous=None):
    """The ``spacy`` module's ``__getattr__`` after :func:`import_spacy_lean`: ``spacy.cli``
    imported on first read; any other name goes to spaCy's own module ``__getattr__`` if it has
    one (``previous``), else is an AttributeError."""

    def __getattr__(name: str):
        if name == "cli":
            import importlib

            return importlib.import_module("spacy.cli")
        if previous is not None:
            return previous(name)
        raise AttributeError(f"module 'spacy' has no attribute {name!r}")

    return __getattr__


#: The registered name of :class:`WhitespaceTokenizer`'s factory.
WHITESPACE_TOKENIZER = "gec_meta.whitespace_tokenizer.v1"


class WhitespaceTokenizer:
    """The tokenizer of a pipeline for whitespace-tokenised text: ``nlp(text)`` is
    ``Doc(vocab, words=text.split())``, i.e. what ERRANT's ``parse(text, tokenise=False)``
    builds (gec-meta's only use of the pipeline).  Nothing to save or load."""

    def __init__(self, vocab):
        self.vocab = vocab

    def __call__(self, text: str):
        from spacy.tokens import Doc

        return Doc(self.vocab, words=text.split())

    def pipe(self, texts, batch_size: int = 1000):
        for text in texts:
            yield self(text)

    def to_bytes(self, **_) -> bytes:
        return b""

    def from_bytes(self, _data: bytes, **_):
        return self

    def to_disk(self, _path, **_) -> None:
        pass

    def from_disk(self, _path, **_):
        return self


def _whitespace_tokenizer_factory():
    """The registered factory: spaCy calls what it returns with the ``Language`` object."""
    return lambda nlp: WhitespaceTokenizer(nlp.vocab)


def pretokenised_load_options() -> dict:
    """Options of ``spacy.load`` (or a model package's ``load``) for a pipeline that only ever
    parses whitespace-tokenised text: the :class:`WhitespaceTokenizer` instead of the model's
    rule tokenizer, whose ~2,700 special cases spaCy builds twice while loading (once from the
    language defaults, once from the model's files: ~0.4 s of a ~1 s load).  The tokenizer
    writes no annotation on a ``Doc`` made from words, and the lexemes it would have created
    are made the same way when first met (their attributes come from the vocab's tables, read
    before any text), so the parses are the same (tests/test_spacy_speed.py)."""
    import spacy

    if WHITESPACE_TOKENIZER not in spacy.registry.tokenizers:
        spacy.registry.tokenizers.register(WHITESPACE_TOKENIZER, func=_whitespace_tokenizer_factory)
    return {"exclude": ["tokenizer"], "config": {"nlp": {"tokenizer": {"@tokenizers": WHITESPACE_TOKENIZER}}}}


def use_numpy_blas(nlp) -> None:
    """Route every thinc layer of ``nlp`` through numpy's BLAS (``NumpyOps(use_blis=False)``)."""
    from thinc.api import NumpyOps

    ops = NumpyOps(use_blis=False)
    for _, component in nlp.pipeline:
        model = getattr(component, "model", None)
        if model is not None and hasattr(model, "walk"):
            for node in model.walk():
                node.ops = ops


def _compile_spec(spec: dict, strings) -> list[tuple] | None:
    """Checks ``(column, kind, value)`` of one token spec, or None if unsupported here."""
    checks: list[tuple] = []
    for key, value in spec.items():
        col = _COL.get(str(key).upper())
        if col is None:
            return None  # OP, ORTH, POS, MORPH, ... -> spaCy's Matcher
        if str(key).upper() == "IS_SPACE":
            if not isinstance(value, bool):
                return None
            checks.append((col, "eq", int(value)))
        elif isinstance(value, str):
            checks.append((col, "eq", strings.add(value)))
        elif isinstance(value, dict) and len(value) == 1:
            (pred, arg), = value.items()
            if pred in ("IN", "NOT_IN") and all(isinstance(v, str) for v in arg):
                checks.append((col, "in" if pred == "IN" else "not_in",
                               frozenset(strings.add(v) for v in arg)))
            elif pred == "REGEX" and isinstance(arg, str):
                # spaCy's _RegexPredicate: re.search on the attribute's string.
                checks.append((col, "regex", re.compile(arg)))
            else:
                return None
        else:
            return None
    return checks


class _IndexedMatcher:
    """The ``AttributeRuler.match`` of a ruler, with an index on the first token's attributes.

    Holds, for every supported pattern, its ruler key ``i`` (the ruler adds pattern group ``i``
    to its Matcher under the key ``str(i)``) and the compiled checks of each of its tokens.
    """

    def __init__(self, ruler):
        from spacy.matcher import Matcher

        strings = ruler.vocab.strings
        self.strings = strings
        self.by_first: dict[tuple[int, int], list] = {}
        self.unindexed: list = []
        self.fallback = Matcher(ruler.vocab)
        self.fallback_size = 0
        for i, group in enumerate(ruler.patterns):
            key = str(i)
            key_hash = strings.add(key)
            for pattern in group["patterns"]:
                compiled = [_compile_spec(spec, strings) for spec in pattern] if isinstance(pattern, list) else [None]
                if not compiled or any(c is None for c in compiled):
                    self.fallback.add(key, [pattern])
                    self.fallback_size += 1
                    continue
                entry = (i, key_hash, compiled)
                slots = self._index_slots(compiled[0])
                if slots is None:
                    self.unindexed.append(entry)
                else:
                    for slot in slots:
                        self.by_first.setdefault(slot, []).append(entry)
        self.by_first = {slot: tuple(entries) for slot, entries in self.by_first.items()}
        self._regex_memo: dict[tuple[int, Any], bool] = {}
        # The first-token result depends on the token's four ids only: memoised by them.
        self._memo: dict[tuple, tuple] = {}

    @staticmethod
    def _index_slots(first: list[tuple]):
        """(column, value) slots under which a token can match ``first``: the values of its
        first equality or IN check (a token has one value per column, so it reaches the entry
        through at most one slot); None if the spec has neither (regex / NOT_IN only)."""
        # LOWER first: the most selective (the ruler's exceptions are per word form).
        for kinds in (("eq",), ("in",)):
            for col in (1, 0, 2, 3):
                for c, kind, value in first:
                    if c == col and kind in kinds:
                        return [(col, value)] if kind == "eq" else [(col, v) for v in value]
        return None

    def _ok(self, row, checks) -> bool:
        for col, kind, value in checks:
            x = int(row[col])
            if kind == "eq":
                if x != value:
                    return False
            elif kind == "in":
                if x not in value:
                    return False
            elif kind == "not_in":
                if x in value:
                    return False
            else:  # regex
                memo_key = (x, value)
                hit = self._regex_memo.get(memo_key)
                if hit is None:
                    hit = self._regex_memo[memo_key] = bool(value.search(self.strings[x]))
                if not hit:
                    return False
        return True

    def _first_matches(self, row: tuple) -> tuple:
        """Entries whose first token spec ``row`` (tag, lower, dep, space ids) satisfies."""
        get = self.by_first.get
        candidates = (*get((0, row[0]), ()), *get((1, row[1]), ()), *get((2, row[2]), ()),
                      *get((3, row[3]), ()), *self.unindexed)
        return tuple(entry for entry in candidates if self._ok(row, entry[2][0]))

    def __call__(self, doc) -> list[tuple[int, int, int, int]]:
        """Matches as ``AttributeRuler.match`` returns them: sorted (attr id, key, start, end)."""
        rows = [tuple(r) for r in doc.to_array(list(_COLUMNS)).tolist()] if len(doc) else []
        n = len(rows)
        found = set()
        memo = self._memo
        if len(memo) > 1_000_000:  # token signatures of a very large corpus: bound the memory
            memo.clear()
        for s, row in enumerate(rows):
            firsts = memo.get(row)
            if firsts is None:
                firsts = memo[row] = self._first_matches(row)
            for i, key_hash, compiled in firsts:
                end = s + len(compiled)
                if end > n:
                    continue
                if all(self._ok(rows[s + k], compiled[k]) for k in range(1, len(compiled))):
                    found.add((i, key_hash, s, end))
        if self.fallback_size:
            for key_hash, s, e in self.fallback(doc, allow_missing=True, as_spans=False):
                found.add((int(self.strings[key_hash]), key_hash, s, e))
        return sorted(found)


def _subclass(component, name: str, methods: dict) -> None:
    """Give one loaded component a subclass of its own class that overrides ``methods``
    (``Pipe.pipe`` calls ``type(self).__call__``, so an instance attribute would not do)."""
    base = type(component)
    component.__class__ = type(f"{name}{base.__name__}", (base,), methods)


def index_attribute_ruler(nlp, name: str = "attribute_ruler") -> None:
    """Give ``nlp``'s attribute ruler the indexed matcher (same matches, see module doc)."""
    if name not in nlp.pipe_names:
        return
    ruler = nlp.get_pipe(name)
    ruler._gec_meta_matcher = _IndexedMatcher(ruler)
    _subclass(ruler, "Indexed", {"match": lambda self, doc: self._gec_meta_matcher(doc)})


def _memo_lemmatize_call(self, doc):
    """``Lemmatizer.__call__`` with every lemma memoised by (ORTH, POS, MORPH).

    spaCy's rule lemmatizer already caches by that key, but only for words that reach its
    suffix rules; base forms (``is_base_form``) and the other early returns are recomputed for
    every token.  The result is a function of the key (the word's text, its POS, its
    morphology, fixed tables), so the memo returns what ``self.lemmatize(token)`` would.
    """
    from spacy.errors import Errors

    if self.mode not in ("rule", "lookup"):  # other modes may read more of the token
        return super(type(self), self).__call__(doc)
    if not self._validated:
        self._validate_tables(Errors.E1004)
    memo = self._gec_meta_memo
    if len(memo) > 1_000_000:  # bound the memory on very large corpora
        memo.clear()
    rows = doc.to_array(["ORTH", "POS", "MORPH", "LEMMA"]).reshape(len(doc), 4).tolist()
    for i, (orth, pos, morph, lemma) in enumerate(rows):
        if self.overwrite or lemma == 0:
            key = (orth, pos, morph)
            value = memo.get(key)
            if value is None:
                value = memo[key] = self.vocab.strings.add(self.lemmatize(doc[i])[0])
            doc[i].lemma = value
    return doc


def index_as_sets(lemmatizer) -> None:
    """Turn the rule lemmatizer's ``lemma_index`` lists into frozensets (same lemmas).

    spaCy's :meth:`~spacy.pipeline.Lemmatizer.rule_lemmatize` only asks ``form in index`` and
    the index's truth value, which a set of the same strings answers alike.  Only for that
    method (spaCy's own, or a language's subclass that overrides only ``is_base_form``, as
    English does): another language's lemmatizer may use the index otherwise.  The tables of
    this loaded pipeline change in memory only (``to_disk`` of it would need lists back)."""
    from spacy.pipeline import Lemmatizer

    if lemmatizer.mode != "rule" or type(lemmatizer).rule_lemmatize is not Lemmatizer.rule_lemmatize:
        return
    if not lemmatizer.lookups.has_table("lemma_index"):
        return
    table = lemmatizer.lookups.get_table("lemma_index")
    for key, words in list(table.items()):  # key: the string id of a part of speech
        if isinstance(words, (list, tuple)):
            table[key] = frozenset(words)


def memoise_lemmatizer(nlp, name: str = "lemmatizer") -> None:
    """Give ``nlp``'s lemmatizer a memo over all its answers and a set index (same lemmas, see
    :func:`_memo_lemmatize_call` and :func:`index_as_sets`)."""
    if name not in nlp.pipe_names:
        return
    lemmatizer = nlp.get_pipe(name)
    index_as_sets(lemmatizer)
    lemmatizer._gec_meta_memo = {}
    _subclass(lemmatizer, "Memo", {"__call__": _memo_lemmatize_call})


#: Layers that map each row of their input to a row of their output by that row alone (so a
#: row's value does not depend on the rows beside it); thinc's names.
_ROWWISE = frozenset({"maxout", "layernorm", "dropout", "mish", "relu", "linear", "hashembed", "ints-getitem"})


def _rowwise(model) -> bool:
    """Whether ``model`` is built of :data:`_ROWWISE` layers joined by thinc's ``chain`` and
    ``concatenate`` only (both keep every row to itself); any other combinator or layer: no."""
    from thinc.layers.chain import forward as chain_forward
    from thinc.layers.concatenate import forward as concatenate_forward

    leaves = 0
    for node in model.walk():
        if node.layers:
            if node._func not in (chain_forward, concatenate_forward):
                return False
        elif node.name in _ROWWISE:
            leaves += 1
        else:
            return False
    return leaves > 0


def _predict_all(layers, X):
    """``chain(*layers).predict(X)``: each layer's ``predict`` in turn (what chain's forward does)."""
    for layer in layers:
        X = layer.predict(X)
    return X


class _ContextDedup:
    """spaCy's ``Tok2Vec.v2`` forward (``MultiHashEmbed`` then ``MaxoutWindowEncoder``),
    computing each distinct context once.

    thinc's forward: features (``extract_features``: one row of attribute ids per token) ->
    embedding and mixing (row-wise layers) -> the texts concatenated with ``pad`` zero rows
    before, between and after them (``with_array``'s ``flatten``) -> per block, each row's window
    of ``2 * nW + 1`` rows (``expand_window``: zeros beyond the array), a row-wise layer, the
    row added back (``residual``) -> the pad rows dropped.  Here each row of that padded array
    has a *key*: at the start the index of its distinct feature row (a pad row: the zero row);
    after a block, the index of its distinct window of keys.  Equal keys have equal inputs at
    every layer, so the row-wise layers run on one row per distinct key, in the same
    arithmetic; pad rows are keyed like the others (after the first block they are no longer
    zero, and thinc lets them into their neighbours' windows).

    The float32 vectors equal those of spaCy's forward of the same batch bit for bit on every
    batch of SEEDA Base's and GJG15's texts measured (batches of 256 and of 7; OpenBLAS sgemm on
    an AVX-512 host).  A row's last bits could in principle depend on its place in a product, as
    they do in spaCy's own batches, so ``tests/test_spacy_speed.py`` compares the vectors to
    float32 rounding and the annotations, which are what ERRANT reads, exactly (all 27,405
    distinct benchmark texts in its slow test).

    Built by :meth:`plan` for a model of exactly that shape, else None (the model's own forward
    is kept).  Written here because neither thinc nor spaCy has it: their forward multiplies
    every row of the batch, repeated contexts included.
    """

    def __init__(self, extract, embed, mix, blocks, pad: int):
        self.extract, self.embed, self.mix, self.blocks, self.pad = extract, embed, mix, blocks, pad

    @classmethod
    def plan(cls, model) -> "_ContextDedup | None":
        try:
            embed, encoder = model.layers
            extract, to_ragged, embed_rows, mix_rows, to_list = embed.layers
        except (ValueError, AttributeError):
            return None
        if (extract.name, to_ragged.name, to_list.name) != ("extract_features", "list2ragged", "ragged2list"):
            return None
        wrapped = (embed_rows, mix_rows, encoder)
        if not all(m.name.startswith("with_array(") and len(m.layers) == 1 for m in wrapped):
            return None
        embed_fn, mix_fn, stack = embed_rows.layers[0], mix_rows.layers[0], encoder.layers[0]
        if not (_rowwise(embed_fn) and _rowwise(mix_fn)):
            return None
        residuals = stack.layers if stack.layers and stack.layers[0].name.startswith("residual(") else [stack]
        blocks = []
        for block in residuals:
            if not block.name.startswith("residual(") or len(block.layers) != 1:
                return None
            inner = block.layers[0].layers  # expand_window, then the row-wise layers
            if len(inner) < 2 or inner[0].name != "expand_window" or not all(_rowwise(m) for m in inner[1:]):
                return None
            blocks.append((int(inner[0].attrs["window_size"]), tuple(inner[1:])))
        return cls(extract, embed_fn, mix_fn, blocks, int(encoder.attrs.get("pad", 0)))

    @staticmethod
    def _windows(keys, count: int, nW: int):
        """The distinct windows of ``keys`` (shape (R,), ints < ``count``) of ``nW`` rows each
        side, ``count`` standing for the zero rows beyond the array.

        Returns (windows, inverse): shape (W, 2 * nW + 1), the key columns of the distinct
        windows; shape (R,), each row's window."""
        import numpy as np

        rows = len(keys)
        outside = np.full(nW, count, dtype=np.int64)
        padded = np.concatenate([outside, keys, outside])
        columns = [padded[k:k + rows] for k in range(2 * nW + 1)]
        # Fold the columns into one int64 code, one value per distinct window of the columns so
        # far; the last fold numbers the whole windows (in sorted order) and finds each one's first row.
        code = np.zeros(rows, dtype=np.int64)
        for column in columns:
            _, first, code = np.unique(code * (count + 1) + column, return_index=True, return_inverse=True)
            code = code.reshape(-1).astype(np.int64)
        return np.stack([c[first] for c in columns], axis=1), code

    def __call__(self, docs) -> list:
        """Token vectors of ``docs``: one float32 array of shape (T_i, nO) per doc."""
        import numpy as np

        feats = self.extract.predict(docs)  # one (T_i, A) uint64 array per doc
        lengths = [len(f) for f in feats]
        unique, inverse = np.unique(np.concatenate(feats), axis=0, return_inverse=True)
        inverse = inverse.reshape(-1).astype(np.int64)
        table = self.mix.predict(self.embed.predict(unique))  # (U, nO): one row per distinct token
        width = table.shape[1]
        zero = np.zeros((1, width), dtype=table.dtype)
        table = np.concatenate([table, zero])  # row U: the pad rows
        pad_keys = np.full(self.pad, len(table) - 1, dtype=np.int64)
        parts, start = [pad_keys], 0
        for n in lengths:  # thinc's flatten(pad=...) layout; it drops empty texts
            if n:
                parts += [inverse[start:start + n], pad_keys]
                start += n
        keys = np.concatenate(parts)
        for nW, layers in self.blocks:
            windows, keys = self._windows(keys, len(table), nW)
            extended = np.concatenate([table, zero])  # row len(table): beyond the array
            X = np.concatenate([extended[windows[:, k]] for k in range(2 * nW + 1)], axis=1)
            table = extended[windows[:, nW]] + _predict_all(layers, X)  # residual: X + f(window(X))
        out, at = [], self.pad
        for n in lengths:
            if n:
                out.append(table[keys[at:at + n]])
                at += n + self.pad
            else:
                out.append(np.zeros((0, width), dtype=table.dtype))
        return out


def _dedup_predict(self, docs):
    """``Tok2Vec.predict`` through :class:`_ContextDedup` (spaCy's own for no tokens at all)."""
    docs = list(docs)
    if not any(len(doc) for doc in docs):
        return super(type(self), self).predict(docs)
    return self._gec_meta_dedup(docs)


def dedup_token_vectors(nlp, name: str = "tok2vec") -> None:
    """Give ``nlp``'s shared tok2vec the forward of :class:`_ContextDedup` where its model has
    spaCy's ``Tok2Vec.v2`` shape (module doc, step 4); else nothing changes."""
    if name not in nlp.pipe_names:
        return
    component = nlp.get_pipe(name)
    plan = _ContextDedup.plan(getattr(component, "model", None))
    if plan is None:
        return
    component._gec_meta_dedup = plan
    _subclass(component, "Dedup", {"predict": _dedup_predict})


def speed_up(nlp) -> None:
    """All speed-ups (module doc) on a loaded English pipeline."""
    use_numpy_blas(nlp)
    dedup_token_vectors(nlp)
    index_attribute_ruler(nlp)
    memoise_lemmatizer(nlp)
