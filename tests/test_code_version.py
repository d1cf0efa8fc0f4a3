"""The statistics cache key holds the version of the code a metric can run, not of every metric
(``gec_meta.cache.code``): an edit of one metric's module keeps the other metrics' statistics
warm; an edit of what a metric imports, directly or not, makes its statistics cold.

The edits below are made to a copy of the package in ``tmp_path`` (the module reads its sources
from ``PACKAGE_DIR``).  That every file whose code runs while statistics are computed is in
the key is checked on every metric config in
``tests/test_experiment_configs.py::test_every_metric_config_runs_on_the_tiny_data``
(``CodeTrace``); that the import scanner finds what ``ast`` finds, in
``tests/test_import_graph.py``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar  # at module level: dataclasses read the test's string annotations here

import pytest

from gec_meta.cache import code
from gec_meta.metrics.base import STATISTICS_CODE
from package_copy import Moves, append, clear_memos

ERRANT = frozenset({"gec_meta.metrics.edit.errant"})
PT_M2 = frozenset({"gec_meta.metrics.edit.pt", "gec_meta.metrics.edit.m2", "gec_meta.metrics.neural.bertscore",
                   "gec_meta.encoders.encoder"})


def _version(roots):
    code.module_code_version.cache_clear()
    return code.module_code_version(roots, STATISTICS_CODE)


def test_an_edit_reaches_only_the_metrics_that_can_run_it(package):
    errant, pt_m2 = _version(ERRANT), _version(PT_M2)
    append(package / "metrics" / "edit" / "cleme.py")  # another metric
    append(package / "meta" / "correlation.py")  # outside the statistics code
    assert (_version(ERRANT), _version(PT_M2)) == (errant, pt_m2)
    append(package / "encoders" / "forward.py")  # PT-M2's encoder, imported by encoder.py
    assert _version(ERRANT) == errant and _version(PT_M2) != pt_m2
    pt_m2 = _version(PT_M2)
    append(package / "edits" / "errant_align.py")  # imported by edits/extract.py, by ERRANT
    assert _version(ERRANT) != errant
    errant = _version(ERRANT)
    append(package / "metrics" / "edit" / "core.py")  # the edit-metric core of both
    assert _version(ERRANT) != errant and _version(PT_M2) != pt_m2


def test_a_new_import_brings_its_module_into_the_key(package):
    (package / "metrics" / "edit" / "helper.py").write_text("X = 1\n", encoding="utf-8")
    clear_memos()
    errant = _version(ERRANT)
    append(package / "metrics" / "edit" / "helper.py")
    assert _version(ERRANT) == errant  # nobody imports it yet
    # inside a function, relative, in parentheses over two lines
    append(package / "metrics" / "edit" / "errant.py",
            "\n\ndef _later():\n    from .helper import (\n        X,\n    )\n    return X\n")
    clear_memos()
    errant = _version(ERRANT)
    append(package / "metrics" / "edit" / "helper.py")
    assert _version(ERRANT) != errant


def test_the_version_is_of_the_bytes(package):
    before = _version(ERRANT)
    spare = package / "edits" / "affixes.py"
    text = spare.read_text(encoding="utf-8")
    assert code.PACKAGE_DIR / "edits" / "affixes.py" in code.closure_files(ERRANT, STATISTICS_CODE)
    append(spare, "")  # same bytes: same version
    assert _version(ERRANT) == before
    spare.write_text(text.replace("\n", "\r\n", 1), encoding="utf-8")
    assert _version(ERRANT) != before


def test_the_scanner_reads_every_import_form():
    modules = code.package_modules()
    source = (
        "import gec_meta.parallel\n"
        "import os, gec_meta.fields as f\n"
        "from gec_meta.edits import extract, edit as e\n"
        "from . import core\n"
        "from ..neural.pair import Pair\n"
        "def f():\n"
        "    from gec_meta.cache.keys import (\n"
        "        text_hash,  # a comment\n"
        "        code_version)\n"
        "    from gec_meta.errors \\\n        import ConfigError\n"
        "x = 'import gec_meta.stopwatch'  # not at the start of a line: not read\n"
    )
    found = code.imported_modules("gec_meta.metrics.edit.errant", source, modules)
    assert found == {"gec_meta.parallel", "gec_meta.fields", "gec_meta.edits.extract", "gec_meta.edits.edit",
                     "gec_meta.metrics.edit.core", "gec_meta.metrics.neural.pair", "gec_meta.cache.keys",
                     "gec_meta.errors"}


def test_object_modules_follow_the_objects_a_config_builds():
    """PT-M2's edit scorer and its encoder come from configs (``_target_``), not from imports
    of the metric's module: the walk over the metric's attributes finds their modules."""
    from gec_meta.encoders import Encoder
    from gec_meta.metrics.edit.pt import PTM2
    from gec_meta.metrics.neural.bertscore import BERTScoreScorer

    metric = PTM2(scorer=BERTScoreScorer(encoder=Encoder(model="bert-base-uncased", layer=9)))
    found = code.object_modules(metric)
    assert {"gec_meta.metrics.edit.pt", "gec_meta.metrics.neural.bertscore", "gec_meta.encoders.encoder"} <= found
    files = code.closure_files(found, STATISTICS_CODE)
    assert code.PACKAGE_DIR / "encoders" / "forward.py" in files
    assert code.PACKAGE_DIR / "metrics" / "edit" / "cleme.py" not in files


def test_object_modules_walk_cycles_partials_and_skip_large_containers():
    from gec_meta.metrics.edit.errant import Errant
    from gec_meta.parallel import parallel_map

    class Holder:
        pass

    a, b = Holder(), Holder()
    a.other, b.other = b, a  # a cycle of foreign objects is not entered: nothing found
    assert code.object_modules(a) == set()
    assert code.object_modules([a, {"f": functools.partial(parallel_map, None)}]) == {"gec_meta.parallel"}
    assert "gec_meta.metrics.edit.errant" in code.object_modules((Errant(),))
    assert code.object_modules([Errant()] + [0] * 300) == set()  # a corpus-sized list is not walked


def test_spa_pvalues_are_recomputed_when_the_metrics_code_changes(tmp_path, monkeypatch):
    """SPA's metric p-values come from the metric's own scoring of permuted statistics, so their
    cache key holds the metric's code version: new scoring code (here: corpus scores negated,
    under a changed version) is never served the p-values of the old (as a changed PT-ERRANT
    corpus rule was, before the key held it)."""
    import numpy as np

    from gec_meta.meta.aggregation import load_aggregation
    from gec_meta.meta.task import Scored
    from gec_meta.meta.wmt_stats import metric_pvalues
    from gec_meta.metrics.length import Length

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    stats = rng.uniform(1, 50, size=(4, 30, 1, 1))
    metric, aggregation = Length(), load_aggregation("default")
    scored = Scored(None, metric, stats, aggregation, aggregation(metric, stats))
    signs = np.where(rng.random((200, 30)) < 0.5, -1.0, 1.0)
    old = metric_pvalues(scored, signs)
    np.testing.assert_array_equal(metric_pvalues(scored, signs), old)  # cached: the same

    version = code.module_code_version
    monkeypatch.setattr(code, "module_code_version", lambda *a: "edited-" + version(*a))
    monkeypatch.setattr(Length, "corpus_scores", lambda self, s: -s[:, :, 0, 0].mean(axis=1))
    fresh = metric_pvalues(scored, signs, use_cache=False)
    assert not np.allclose(fresh, old)  # the new code's p-values differ ...
    np.testing.assert_array_equal(metric_pvalues(scored, signs), fresh)  # ... and are what it gets


class _StubEncoder:
    pooling = "mean"

    def sentence_embeddings(self, texts):
        raise AssertionError("not called")

    def signature(self):
        return "stub"


def test_stores_of_intermediate_values_follow_their_code(package, monkeypatch):
    """UOT-ERRANT's edit vectors and GLEU's reference draws are stored under their code's
    version too: vectors (or draws) made by older code are never read by newer code."""
    from gec_meta import cache
    from gec_meta.metrics.edit.uot_vectors import EditVectorizer
    from gec_meta.metrics.ngram import gleu

    keys = []
    monkeypatch.setattr(cache, "load_array", lambda key, **kw: keys.append(key))
    monkeypatch.setattr(cache, "save_array", lambda *a, **kw: None)

    def state():
        code.module_code_version.cache_clear()
        gleu.sample_reference_indices.cache_clear()  # its in-process memo
        gleu.sample_reference_indices(3, 4, 2, 0, "python2")
        return EditVectorizer(_StubEncoder()).signature(), keys[-1]

    before = state()
    append(package / "metrics" / "edit" / "cleme.py")
    assert state() == before
    append(package / "metrics" / "edit" / "uot_vectors.py")
    assert state()[0] != before[0] and state()[1] == before[1]
    append(package / "metrics" / "ngram" / "gleu.py")
    assert state()[1] != before[1]


def test_stores_of_model_outputs_follow_their_code(package, tmp_path, monkeypatch):
    """A language model's scores (Scribendi), a regressor's outputs (SOME, IMPARA), BARTScore's
    log-likelihoods and a local LLM's answers are stored under the version of the code that
    makes them (an edit of it never reads the old code's values); a remote LLM's answers under
    the exact request alone (an edit of the package never asks a paid API again); and none of
    these code versions enters a result signature."""
    from gec_meta.llm.local import TransformersChat
    from gec_meta.llm.openai import OpenAICompatibleChat
    from gec_meta.metrics.neural.bartscore import BARTScoreScorer
    from gec_meta.models.causal_lm import CausalLM
    from gec_meta.models.regressors import SequenceRegressor

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))

    def state():
        code.module_code_version.cache_clear()
        lm, reg = CausalLM("gpt2"), SequenceRegressor("some/model", "metric.model")
        local = TransformersChat("HuggingFaceTB/SmolLM2-135M-Instruct")
        remote = OpenAICompatibleChat("gpt-4o-mini", "http://localhost:1")
        bart = BARTScoreScorer("facebook/bart-large-cnn")
        for named in (lm, reg, local, remote):  # the signatures' part stays free of code versions
            assert "code:" not in named.identity
        assert "code:" not in bart.signature()
        return {"lm": lm.store.namespace, "regressor": reg.store.namespace, "local": local.store.namespace,
                "remote": remote.store.namespace, "bart": bart.store.namespace}

    before = state()
    assert before["remote"] == OpenAICompatibleChat("gpt-4o-mini", "http://localhost:1").identity
    append(package / "metrics" / "edit" / "cleme.py")  # code none of them runs
    assert state() == before

    changed_by = Moves(package, state)
    assert changed_by("models", "causal_lm.py") == {"lm"}
    assert changed_by("models", "regressors.py") == {"regressor"}
    assert changed_by("models", "cached.py") == {"lm", "regressor"}
    assert changed_by("encoders", "batching.py") == {"lm", "regressor", "bart", "local"}
    # the encoder itself only where it runs (BARTScore's scorer): encoders/__init__.py imports it
    # lazily, and the models import only encoders/batching.py, which runs that __init__.py
    assert changed_by("encoders", "encoder.py") == {"bart"}
    assert changed_by("metrics", "neural", "bartscore.py") == {"bart"}
    assert changed_by("llm", "local.py") == {"local"}
    assert changed_by("llm", "openai.py") == set()  # the remote answers stay
    # ERRANT's spaCy loading: none of them imports it (only the lazy public API of
    # gec_meta/__init__.py would; a package above a module counts with the imports it executes)
    assert changed_by("edits", "spacy_speed.py") == set()


def test_a_package_above_a_module_counts_with_the_imports_it_executes():
    """Importing a module runs the ``__init__.py`` of every package above it, not the imports
    inside their functions: ``gec_meta/__init__.py``'s lazy ``__getattr__`` imports the public
    API only when ``gec_meta.load_metric`` is read, so it is in the closure of ``gec_meta``
    imported by name, not in that of a module below it."""
    assert "gec_meta.api" not in code.import_closure(["gec_meta.models.causal_lm"])
    assert "gec_meta.models" in code.import_closure(["gec_meta.models.causal_lm"])  # parent kept
    assert "gec_meta.api" in code.import_closure(["gec_meta"])
    # a module imported by name still counts with the imports inside its functions
    assert "gec_meta.edits.edit_sets" in code.import_closure(["gec_meta.data.refsets"])


#: Metrics whose statistics never read extracted edits, by the modules their objects come from.
NO_EDITS = {
    "bertscore": {"gec_meta.metrics.neural.bertscore", "gec_meta.encoders.encoder"},
    "bartscore": {"gec_meta.metrics.neural.bartscore"},
    "scribendi": {"gec_meta.metrics.neural.scribendi", "gec_meta.models.causal_lm"},
    "some": {"gec_meta.metrics.neural.some", "gec_meta.models.regressors"},
    "impara": {"gec_meta.metrics.neural.impara", "gec_meta.models.regressors"},
    "gleu": {"gec_meta.metrics.ngram.gleu"},
    "green": {"gec_meta.metrics.ngram.green"},
    "length": {"gec_meta.metrics.length"},
}
USES_EDITS = {"errant": ERRANT, "pt_m2": PT_M2, "cleme": frozenset({"gec_meta.metrics.edit.cleme"}),
              "llm_e": frozenset({"gec_meta.metrics.llm"})}


@pytest.mark.parametrize("path", [("edits", "extract.py"), ("edits", "spacy_speed.py"),
                                  ("edits", "languages.py"), ("edits", "cherrant.py")])
def test_an_edit_of_the_extractors_keeps_the_statistics_of_metrics_without_edits(package, path):
    """ERRANT's and ChERRANT's code (edits/) is in the key of the metrics that extract edits, and
    not in that of BERTScore, GLEU, Scribendi... , although every metric's signature names the
    extractor and the edit metrics' keys its identity: that code lives in modules those metrics
    do not import (meta/components.py, metrics/uses_edits.py)."""
    before = {name: _version(frozenset(roots)) for name, roots in {**NO_EDITS, **USES_EDITS}.items()}
    append(package.joinpath(*path))
    after = {name: _version(frozenset(roots)) for name, roots in {**NO_EDITS, **USES_EDITS}.items()}
    assert {name for name in before if after[name] != before[name]} == set(USES_EDITS)


def test_a_metric_that_says_it_uses_edits_names_its_extractor():
    """``uses_edits`` comes with the extractor's identity in the key (the ``UsesEdits`` mixin);
    a metric that sets the flag alone is told what to derive from, not keyed without it."""
    from gec_meta.metrics.base import Metric
    from gec_meta.metrics.uses_edits import UsesEdits

    @dataclass(frozen=True)
    class FlagOnly(Metric):
        name: ClassVar[str] = "flag_only"
        uses_edits: ClassVar[bool] = True

        def statistics(self, sources, hypotheses, references):
            raise AssertionError

    @dataclass(frozen=True)
    class WithMixin(UsesEdits, Metric):
        name: ClassVar[str] = "with_mixin"

        def statistics(self, sources, hypotheses, references):
            raise AssertionError

    with pytest.raises(NotImplementedError, match="UsesEdits"):
        FlagOnly().cache_key()
    from gec_meta.edits.extract import errant_extractor

    assert WithMixin().cache_key() == f"with_mixin|v:1|extractor:{errant_extractor().namespace()}"
