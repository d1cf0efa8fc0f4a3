"""Language as a dataset setting: the RevisitCGEC loader (index bases and counts checked by hand
against the files), the language -> extractor dispatch, signatures, and each metric family's
guard (a ConfigError naming what to set, before any work)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gec_meta.errors import ConfigError


@pytest.fixture(scope="module")
def cgec(data_root):
    if not (data_root / "revisitcgec").is_dir():
        pytest.skip("RevisitCGEC is not in the data directory")
    from gec_meta.data.datasets import load_dataset

    return load_dataset("revisit_cgec", data_root)


# ----------------------------------------------------------------------------- loader
def test_index_bases_on_hand_checked_sentences(cgec):
    # judgments.xml's first item (doc-id mucgec, src-id 687) judges MuCGEC id 688 = the first line
    # of mucgec_ids.txt = line 1 of every system's mucgec file; its first yaclc item (src-id 894,
    # id 101) judges YACLC id 894 (column 1 of yaclc-minimal_dev.para, line 895) = line 1 of the
    # yaclc files, sentence 100 here.
    first = cgec.judgments["ranking"][0]
    assert (first.item_id, first.line) == ("1", 0)
    assert "".join(cgec.sources[0].split()).startswith("年轻人愿意花几十万印尼币去看他们偶像的演唱会")
    assert "".join(cgec.hypotheses[cgec.systems.index("t5")][0].split()).endswith("也让他们变名牌观念者。")
    yaclc = next(i for i in cgec.judgments["ranking"] if i.item_id == "101")
    assert yaclc.line == 100
    assert "".join(cgec.sources[100].split()) == "好几次试试了，不过每次这样。"
    assert "".join(cgec.hypotheses[cgec.systems.index("bart")][100].split()) == "好几次试了，不过每次都是这样。"


def test_counts_by_hand(cgec, data_root):
    from gec_meta.data.datasets import load_dataset

    assert cgec.language == "zh" and cgec.systems == ("bart", "char", "s2e", "spm", "t5", "word")
    assert len(cgec.sources) == 200 and all(len(h) == 200 for h in cgec.hypotheses)
    items = cgec.judgments["ranking"]
    assert len(items) == 1000 and {i.annotator for i in items} == {"A1", "A2", "A3", "A4", "A5"}
    assert sum(i.line < 100 for i in items) == 500
    # YACLC minimal has up to 11 references a sentence (13 fields), MuCGEC's sentences up to 4
    assert len(cgec.references) == 11
    assert max(sum(bool(r[n]) for r in cgec.references) for n in range(100)) == 4
    mucgec = load_dataset("revisit_cgec", data_root, subset="mucgec")
    assert len(mucgec.sources) == 100 and len(mucgec.judgments["ranking"]) == 500
    fluency = load_dataset("revisit_cgec", data_root, subset="yaclc", yaclc_references="fluency")
    assert len(fluency.references) == 6 and fluency.sources == cgec.sources[100:]


def test_no_error_reference_is_the_source_and_not_annotatable_is_kept(cgec):
    # MuCGEC ids 27, 1092, 312 (positions 46, 67, 78 of mucgec_ids.txt) have the one reference
    # 没有错误; id 1077 (position 24) has 无法标注.
    for n in (46, 67, 78):
        assert cgec.references[0][n] == cgec.sources[n] and not cgec.references[1][n]
    assert "".join(cgec.references[0][24].split()) == "无法标注"


def test_human_scores_follow_the_gjg15_code_path(cgec):
    from gec_meta.data.judgments import pairwise_wins, rank_matrix

    wins = pairwise_wins(rank_matrix(cgec.judgments["ranking"], cgec.systems))
    # Expected Wins by hand from the win counts (GJG15 §3.2)
    ew = [np.mean([wins[i, j] / (wins[i, j] + wins[j, i]) for j in range(6) if j != i]) for i in range(6)]
    assert np.allclose(cgec.human["EW"], ew)
    assert cgec.systems[int(np.argmax(cgec.human["TS"]))] == "bart" == cgec.systems[int(np.argmax(ew))]


def test_bad_values_name_the_key_or_file(data_root, tmp_path):
    from gec_meta.data.datasets import load_dataset
    from gec_meta.errors import MissingDataError

    with pytest.raises(ConfigError, match="dataset.subset"):
        load_dataset("revisit_cgec", data_root, subset="xx")
    with pytest.raises(ConfigError, match="dataset.yaclc_references"):
        load_dataset("revisit_cgec", data_root, yaclc_references="xx")
    (tmp_path / "revisitcgec").mkdir()
    with pytest.raises(MissingDataError, match="mucgec_ids.txt"):
        load_dataset("revisit_cgec", tmp_path)


def test_signature_names_the_language_only_when_not_english(cgec):
    from gec_meta.metrics.edit.errant import Errant

    assert "lang=zh" in cgec.signature()
    english = dataclasses.replace(cgec, language="en")
    assert "lang" not in english.signature()
    assert Errant().signature() == "errant(beta=0.5,reference_edits=extract,v=1)"
    assert Errant().for_language("zh").signature() == \
        "errant(beta=0.5,edits=cherrant-char,lang=zh,reference_edits=extract,v=1)"


def test_dispatch():
    from gec_meta.edits.cherrant import CherrantExtractor
    from gec_meta.edits.extract import ErrantExtractor
    from gec_meta.edits.languages import edit_extractor, extractor_name, check_language

    assert isinstance(edit_extractor("en"), ErrantExtractor)
    assert isinstance(edit_extractor("zh"), CherrantExtractor)
    assert (extractor_name("en"), extractor_name("zh")) == ("errant", "cherrant-char")
    with pytest.raises(ConfigError, match="ISO 639-1"):
        check_language("Chinese")


# ----------------------------------------------------------------------------- guards
def _metric(name, *overrides):
    from hydra.utils import instantiate

    from gec_meta.config import compose

    return instantiate(compose((f"metric={name}", *overrides)).metric)


@pytest.mark.parametrize("name", ["errant", "senterrant", "m2", "sentm2", "gleu", "green", "gotoscorer",
                                  "cleme_dependent", "cleme_independent"])
def test_token_and_edit_metrics_run_on_chinese(name):
    metric = _metric(name).for_language("zh")
    assert metric.language == "zh" and "lang=zh" in metric.signature()


@pytest.mark.parametrize("name,says", [("some", "SOME"), ("impara", "IMPARA"), ("scribendi", "GPT-2"),
                                       ("llm_s", "English learners"), ("llm_e", "English learners")])
def test_english_only_metrics_refuse_chinese_in_one_line(name, says):
    metric = _metric(name)
    with pytest.raises(ConfigError) as exc:
        metric.for_language("zh")
    msg = str(exc.value)
    assert "\n" not in msg and f"metric {metric.name}" in msg and says in msg and "'zh'" in msg
    assert metric.for_language("en") is metric


@pytest.mark.parametrize("name,key", [("bertscore", "encoder.model"), ("pt_errant", "encoder.model"),
                                      ("pt_m2", "encoder.model"), ("uot_errant", "encoder.model"),
                                      ("bartscore", "scorer.model")])
def test_english_models_refused_with_what_to_set(name, key):
    metric = _metric(name, *(["scorer=bartscore"] if name == "bartscore" else []))
    with pytest.raises(ConfigError, match=f"{key}=.* is an English-only model; set {key}="):
        metric.for_language("zh")


@pytest.mark.parametrize("name", ["bertscore", "pt_m2"])
def test_a_chinese_encoder_is_accepted(name):
    metric = _metric(name, "encoder.model=bert-base-chinese")
    assert metric.for_language("zh").language == "zh"


def test_ensemble_checks_every_member():
    ok = _metric("ensemble", "metric.members=[gleu,green,sentm2]").for_language("zh")
    assert all(m.language == "zh" for m in ok._metrics)
    with pytest.raises(ConfigError, match="metric some"):
        _metric("ensemble", "metric.members=[gleu,some]").for_language("zh")


def test_the_task_refuses_before_any_work():
    from gec_meta.data.datasets import Dataset
    from gec_meta.meta.aggregation import Default
    from gec_meta.meta.task import Task

    ds = Dataset("toy", "default", "toy", ("我 好",), ("a",), (("我 很 好",),), {}, {}, (0,), language="zh")

    with pytest.raises(ConfigError, match="metric some"):
        Task(ds, _metric("some"), Default())


def test_gleu_draws_among_each_sentences_own_references():
    from gec_meta.data.refsets import ReferenceRows
    from gec_meta.metrics.ngram.gleu import GLEU, sample_reference_indices

    refs = ReferenceRows([["a", "b", "c"], ["a2", "b", "c2"], ["a3", "b", "c"]],
                         [[True, True, True], [True, False, True], [True, False, False]])
    metric = GLEU(iterations=50).bind(["a", "b", "c"], [["a", "b", "c"]], refs)
    assert metric._present_slots == ((0, 1, 2), (0,), (0, 1))
    idx = metric._draws(3, 3)
    assert set(idx[:, 0]) == {0, 1, 2} and set(idx[:, 1]) == {0} and set(idx[:, 2]) == {0, 1}
    # with every slot present, the official draws (compute_gleu's random.seed(101 * j))
    full = GLEU(iterations=50).bind(["a"] * 3, [["a"] * 3], ReferenceRows([["a"] * 3] * 3, [[True] * 3] * 3))
    assert (full._draws(3, 3) == sample_reference_indices(50, 3, 3, 0, "python2")).all()


def test_llm_evaluators_name_the_language_with_the_multilingual_prompt():
    from gec_meta.llm.prompts import Context, PromptTemplate

    metric = _metric("llm_s", "metric.template=llm_s_multilingual", "metric.context=none")
    assert metric.for_language("zh").language == "zh"
    with pytest.raises(ConfigError, match="metric.context=none"):
        _metric("llm_s", "metric.template=llm_s_multilingual").for_language("zh")
    text = PromptTemplate("llm_s_multilingual").render("我 好", Context(), ["我 很 好"], {"language": "Chinese"})
    assert "an essay written by a learner of Chinese." in text
    english = PromptTemplate("llm_s").render("I am", Context(), ["I am ."], {"language": "Chinese"})
    assert "written by an English learner." in english  # the paper's prompt is unchanged
