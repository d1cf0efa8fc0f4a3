"""LLM evaluators (Kobayashi et al. 2024a): prompts, strict answer parsing, partition of the
outputs into prompts, retries, missing answers, the answer cache and the dry run.

The backend here is a scripted one (answers computed from the prompt, model calls counted);
the OpenAI-compatible backend is tested over real HTTP in ``test_llm_http.py``.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from gec_meta.errors import ConfigError
from gec_meta.llm.backends import ChatBackend, Decoding
from gec_meta.llm.parsing import answer_schema, parse_answer
from gec_meta.llm.prompts import Context, PromptTemplate, corpus_context, mark_edits
from gec_meta.metrics.llm import (DryRunFinished, LLMEdit, LLMSentence, MissingAnswersWarning, missing_count,
                                  target_scores)

GOLDEN = Path(__file__).resolve().parent / "golden" / "llm"

# SEEDA / CoNLL-2014 test line 792 (0-based) and its neighbours: the paper's App. A example.
PREV = "These are the advantages that save works most of the time ."
SRC = "In conclude , socia media benefits people in several ways but in the same time harms people ."
NEXT = "People should avoid the misuse of socia media and use it in the proper way ."
OUTPUTS = [
    SRC,
    "In conclusion , social media benefits people in several ways but at the same time harms people .",
    "In conclusion , social media benefits people in several ways but , at the same time , harms people .",
    "In conclude , social media benefits people in several ways but at the same time harms people .",
    "In conclusion , socia media benefits people in several ways but , at the same time , harms people .",
]


def golden(name: str) -> str:
    return (GOLDEN / name).read_text(encoding="utf-8").rstrip("\n")


# --------------------------------------------------------------------------- prompts
def test_llm_s_fluency_renders_the_papers_example():
    prompt = PromptTemplate("llm_s", "fluency", LLMSentence.criteria).render(SRC, Context(PREV, NEXT), OUTPUTS)
    assert prompt == golden("llm_s_fluency_paper_example.txt")


def test_llm_s_without_context_and_meaning_criterion():
    prompt = PromptTemplate("llm_s", "meaning", LLMSentence.criteria).render(
        "He go to school yesterday .", Context(), ["He went to school yesterday .", "He goes to school yesterday ."])
    assert prompt == golden("llm_s_meaning_no_context.txt")


def test_llm_e_first_corpus_line_with_difficulty():
    src = "He go to school yesterday ."
    edits = {"He went to school yesterday .": [(1, 2, 1, 2, "go", "went", "R:VERB:TENSE")], src: []}
    targets = [mark_edits(src, edits[t]) for t in ("He went to school yesterday .", src)]
    prompt = PromptTemplate("llm_e", "difficulty", LLMEdit.criteria).render(src, Context(None, "It was raining ."),
                                                                           targets)
    assert prompt == golden("llm_e_difficulty_first_line.txt")


def test_llm_e_marks_errant_edits(tmp_path):
    metric = LLMEdit(llm=ScriptedChat(lambda p, d: ""), context=None)
    targets = metric.format_targets(SRC, [OUTPUTS[0], OUTPUTS[1], OUTPUTS[2]])
    prompt = metric.prompt_template.render(SRC, Context(PREV, NEXT), targets)
    assert prompt == golden("llm_e_base.txt")


def test_mark_edits_notation():
    src = "the cat sit on mat"
    edits = [(2, 3, 2, 3, "sit", "sits", "R:VERB:SVA"), (4, 4, 4, 5, "", "the", "M:DET"),
             (0, 1, 0, 0, "the", "", "U:DET"), (5, 5, 5, 6, "", ".", "M:PUNCT"),
             (-1, -1, -1, -1, "", "", "noop")]
    assert mark_edits(src, edits) == "[the→] cat [sit→sits] on [→the] mat [→.]"
    assert mark_edits(src, []) == src


def test_criteria_belong_to_their_evaluator():
    with pytest.raises(ConfigError, match="difficulty"):
        LLMSentence(llm=ScriptedChat(lambda p, d: ""), criterion="difficulty")
    with pytest.raises(ConfigError, match="template"):
        LLMSentence(llm=ScriptedChat(lambda p, d: ""), template="no_such_template")
    with pytest.raises(ConfigError, match="llm"):
        LLMSentence()


def test_corpus_context_follows_corpus_order():
    corpus = ["a .", "b .", "x .", "c .", "x .", "d ."]
    ctx, missing = corpus_context(["a .", "x .", "x .", "d .", "zzz ."], corpus)
    assert ctx[0] == Context(None, "b .")
    assert ctx[1] == Context("b .", "c .")      # the first "x ."
    assert ctx[2] == Context("c .", "d .")      # the second "x .", after the first
    assert ctx[3] == Context("x .", None)
    assert ctx[4] == Context() and missing == 1


def test_seeda_context_is_the_corpus_neighbours(data_root):
    from gec_meta.data.datasets import load_seeda

    ds = load_seeda(data_root, "base")
    metric = LLMSentence(llm=ScriptedChat(lambda p, d: ""))
    ctx = metric.contexts(ds.sources)
    n = ds.sources.index(SRC)
    assert ctx[n] == Context(PREV, NEXT) and metric.run_log.no_context == 0


# --------------------------------------------------------------------------- parsing
@pytest.mark.parametrize("answer, scores", [
    ('{"target1_score": 4, "target2_score": 1}', (4, 1)),
    ('```json\n{\n\t"target1_score": 5,\n\t"target2_score": 3\n}\n```', (5, 3)),
    ('Here you are:\n```json\n{"target1_score": 2, "target2_score": 2}\n```\nDone.', (2, 2)),
    ('```\n{"target1_score": 3, "target2_score": 4.0}\n```', (3, 4)),  # JSON Schema: 4.0 is an integer
])
def test_parse_valid_answers(answer, scores):
    parsed = parse_answer(answer, 2)
    assert parsed.valid and parsed.scores == scores


@pytest.mark.parametrize("answer, error", [
    ("The first target is better: 4 and 2.", "no JSON object"),
    ('```json\n{"target1_score": 4, // good\n"target2_score": 2}\n```', "invalid JSON"),
    ('{"target1_score": 4, "target2_score": 2,}', "invalid JSON"),
    ('[4, 2]', "no JSON object"),
    ('```json\n[4, 2]\n```', "not an object"),
    ('{"target1_score": 4, "target1_score": 2, "target2_score": 1}', "duplicate"),
    ('```json\n{"target1_score": 1}\n```\n```json\n{"target2_score": 1}\n```', "2 code blocks"),
])
def test_parse_invalid_answers(answer, error):
    parsed = parse_answer(answer, 2)
    assert not parsed.valid and parsed.scores == (None, None)
    assert error in " ".join(parsed.errors)


@pytest.mark.parametrize("answer, scores, error", [
    ('{"target1_score": 4}', (4, None), "target2_score missing"),
    ('{"target1_score": 6, "target2_score": 2}', (None, 2), "outside 1-5"),
    ('{"target1_score": 0, "target2_score": 2}', (None, 2), "outside 1-5"),
    ('{"target1_score": "4", "target2_score": 2}', (None, 2), "not an integer"),
    ('{"target1_score": true, "target2_score": 2}', (None, 2), "not an integer"),
    ('{"target1_score": 3.5, "target2_score": 2}', (None, 2), "not an integer"),
    ('{"target1_score": 3, "target2_score": 2, "target3_score": 1}', (3, 2), "unexpected key"),
])
def test_parse_partial_answers(answer, scores, error):
    parsed = parse_answer(answer, 2)
    assert not parsed.valid and parsed.scores == scores
    assert error in " ".join(parsed.errors)


def test_schema_names_every_target():
    schema = answer_schema(3)
    assert schema["required"] == ["target1_score", "target2_score", "target3_score"]
    assert schema["properties"]["target2_score"] == {"type": "integer", "minimum": 1, "maximum": 5}
    assert schema["additionalProperties"] is False


# --------------------------------------------------------------------------- metric
class ScriptedChat(ChatBackend):
    """A backend whose 'model' is a function of (prompt, decoding); model calls are counted."""

    kind = "scripted"

    def __init__(self, fn, name: str = "scripted", **kwargs):
        super().__init__(name, **kwargs)
        self.fn = fn
        self.generated = 0

    def model_identity(self) -> str:
        return self.model

    def generate(self, messages, decoding: Decoding) -> str:
        self.generated += 1
        return self.fn(messages[-1]["content"], decoding)


def prompt_targets(prompt: str) -> list[str]:
    block = prompt.split("# targets\n", 1)[1].split("\n\n# output format", 1)[0]
    return block.split("\n")


def length_judge(prompt: str, decoding) -> str:
    """Score = 1 + number of words mod 5: deterministic, different for different targets."""
    targets = prompt_targets(prompt)
    return "```json\n{" + ", ".join(f'"target{i}_score": {1 + len(t.split()) % 5}'
                                    for i, t in enumerate(targets, 1)) + "}\n```"


SOURCES = ["a b c .", "d e f ."]
HYPS = [  # 7 systems; sentence 0 has 7 distinct outputs (> 5), sentence 1 has 2
    ["a b c .", "d e f ."],
    ["a b c d .", "d e f g ."],
    ["a b .", "d e f ."],
    ["a b c d e .", "d e f ."],
    ["x a b c .", "d e f g ."],
    ["a b c d e f .", "d e f ."],
    ["a .", "d e f ."],
]


def make(judge=length_judge, cls=LLMSentence, **options):
    backend = ScriptedChat(judge, name=options.pop("model_name", "scripted"), use_cache=options.pop("use_cache", True))
    return cls(llm=backend, context=None, **options), backend


def test_every_distinct_output_scored_once_and_shared():
    metric, backend = make(model_name="share")
    stats = metric.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    assert stats.shape == (7, 2, 1, 2) and missing_count(stats) == 0
    jobs = metric.plan(SOURCES, HYPS)
    # 7 distinct outputs -> ceil(7/5) = 2 prompts of 4 + 3; 2 distinct -> 1 prompt.
    assert sorted(len(j.targets) for j in jobs) == [2, 3, 4]
    assert backend.generated == 3
    targets0 = [t for j in jobs if j.sentence == 0 for t in j.targets]
    assert sorted(targets0) == sorted({h[0] for h in HYPS})
    scores = metric.sentence_scores(stats)
    for s, hyp in enumerate(HYPS):
        for n, h in enumerate(hyp):
            assert scores[s, n] == 1 + len(h.split()) % 5
    assert scores[0, 1] == scores[2, 1] == scores[3, 1]  # identical outputs, one score


def test_partition_is_seeded_and_independent_of_system_order():
    metric, _ = make()
    a = metric.partition(SOURCES[0], [h[0] for h in HYPS])
    b = metric.partition(SOURCES[0], [h[0] for h in reversed(HYPS)])
    assert a == b
    other, _ = make(partition_seed=1)
    assert other.partition(SOURCES[0], [h[0] for h in HYPS]) != a
    twelve = [f"w{i} ." for i in range(12)]
    groups = metric.partition("src .", twelve)
    assert [len(g) for g in groups] == [4, 4, 4] and sorted(sum(groups, ())) == sorted(twelve)


def test_malformed_answers_are_retried_then_missing():
    def judge(prompt, decoding):
        n = len(prompt_targets(prompt))
        if n == 2:  # sentence 1: never valid
            return "I think they are both fine."
        if decoding.temperature == 0:  # sentence 0: the first answer is partial, the retry is valid
            return '{"target1_score": 3}'
        return "{" + ", ".join(f'"target{i}_score": 2' for i in range(1, n + 1)) + "}"

    metric, backend = make(judge, model_name="retry", max_retries=2, retry_temperature=0.5)
    with pytest.warns(MissingAnswersWarning, match="2 of 9 targets"):
        stats = metric.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    log = metric.run_log
    assert backend.generated == 2 * 2 + 3  # two prompts valid at the 2nd try, one failing 3 times
    assert (log.valid_first, log.valid_after_retry, log.failed, log.retries) == (0, 2, 1, 4)
    assert missing_count(stats) == 7 and log.missing_targets == 2
    scores = metric.sentence_scores(stats)
    assert np.isnan(scores[:, 1]).all() and (scores[:, 0] == 2).all()
    assert math.isnan(float(metric.corpus_scores(stats)[0])) is False  # the mean skips NaN


def test_partial_answers_kept_or_dropped():
    def judge(prompt, decoding):
        return '{"target1_score": 4}'

    keep, _ = make(judge, model_name="partial", max_retries=0)
    with pytest.warns(MissingAnswersWarning, match="6 of 9 targets"):
        stats = keep.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    assert keep.run_log.partial == 3 and keep.run_log.missing_targets == 9 - 3
    drop, _ = make(judge, model_name="partial", max_retries=0, accept_partial=False)
    with pytest.warns(MissingAnswersWarning, match="9 of 9 targets"):
        stats2 = drop.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    assert drop.run_log.failed == 3 and missing_count(stats2) == 14 > missing_count(stats)
    ts = target_scores(stats, HYPS)
    assert len(ts) == 9 and int(np.sum(ts == 4)) == 3 and int(np.isnan(ts).sum()) == 6


def test_rerun_makes_no_model_call():
    from gec_meta.meta.aggregation import TrueSkillAggregation
    from gec_meta.meta.task import compute_statistics

    first, backend1 = make(model_name="rerun")
    stats1 = compute_statistics(first, SOURCES, HYPS, None)
    assert backend1.generated == 3 and backend1.stats.calls == 3
    # A new process would build a new backend: same identity -> every answer from the disk cache.
    second, backend2 = make(model_name="rerun")
    stats2 = second.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    assert backend2.generated == 0 and backend2.stats.calls == 0 and backend2.stats.cache_hits == 3
    np.testing.assert_array_equal(stats1, stats2)
    # Through the statistics cache, not even the answer cache is consulted.
    third, backend3 = make(model_name="rerun")
    stats3 = compute_statistics(third, SOURCES, HYPS, None)
    assert backend3.stats.calls == 0 and backend3.stats.cache_hits == 0
    np.testing.assert_array_equal(stats1, stats3)
    assert np.isfinite(TrueSkillAggregation()(third, stats3)).all()


def test_cache_key_includes_decoding_and_model():
    metric, backend = make(model_name="keys")
    metric.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    other_seed, b2 = make(model_name="keys")
    b2.decoding = Decoding(temperature=0.0, seed=1)
    other_seed.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    other_model, b3 = make(model_name="keys-2")
    other_model.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    assert backend.generated == b2.generated == b3.generated == 3


def test_dry_run_prints_plan_and_calls_nothing(capsys):
    metric, backend = make(model_name="dry", dry_run=True, dry_run_show=1)
    with pytest.raises(DryRunFinished):
        metric.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    out = capsys.readouterr().out
    assert backend.generated == 0
    assert out.count("----- prompt ") == 1 and "# targets" in out
    assert "3 prompts (9 targets) for 2 sentences; 0 answered in the cache; 3 model calls to make" in out
    assert re.search(r"prompt tokens of those calls: \d+ \(estimate", out)
    assert "answer tokens: at most 384" in out


def test_dry_run_counts_cached_prompts(capsys):
    make(model_name="dry2")[0].bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    metric, _ = make(model_name="dry2", dry_run=True, dry_run_show=0)
    with pytest.raises(DryRunFinished):
        metric.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    assert "3 answered in the cache; 0 model calls to make" in capsys.readouterr().out


def test_signature_and_cache_key_name_what_changes_the_numbers():
    metric, _ = make(criterion="fluency")
    sig = metric.signature()
    assert sig.startswith("llm_s(") and "criterion=fluency" in sig and "llm=scripted:scripted" in sig
    assert "decoding=greedy" in sig and "max_targets=5" in sig
    bound = metric.bind(SOURCES, HYPS, ())
    assert bound.cache_key() != metric.bind(SOURCES, HYPS[:3], ()).cache_key()
    assert bound.cache_key() != make(criterion="grammaticality")[0].bind(SOURCES, HYPS, ()).cache_key()


def test_hydra_configs_compose():
    from gec_meta.api import load_metric
    from gec_meta.llm.local import TransformersChat
    from gec_meta.llm.openai import OpenAICompatibleChat

    m = load_metric("llm_s", "metric.criterion=fluency", "metric.context=none")
    assert isinstance(m, LLMSentence) and isinstance(m.llm, TransformersChat) and m.criterion == "fluency"
    e = load_metric("llm_e", "llm=openai", "llm.base_url=http://127.0.0.1:9/v1", "llm.model=local",
                    "metric.context=none")
    assert isinstance(e, LLMEdit) and isinstance(e.llm, OpenAICompatibleChat)
    assert e.llm.base_url == "http://127.0.0.1:9/v1" and e.llm.decoding == Decoding(0.0, 0, 128)


def test_results_record_missing_answers():
    """An LLM evaluator's results say how many (system, sentence) scores are missing."""
    # statistics (S=3, N=4, 1, (score, missing)): A misses 1 sentence, C misses 2, B none
    missing = np.array([[0, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 1]], dtype=float)
    stats = np.stack([np.where(missing > 0, 0.0, 3.0), missing], axis=-1)[:, :, None, :]
    metric = LLMSentence(llm=ScriptedChat(lambda p, d: ""))
    diag = metric.diagnostics(stats, ("A", "B", "C"))
    assert diag == {"missing": {"cells": 3, "of": 12, "per_system": {"A": 1, "C": 2}}}



def test_a_run_records_what_the_llm_cost(data_root):
    """Task.run puts the LLM usage into the timing (timing.json), not into results.json, and
    results.md shows it; a rerun served by the statistics cache asks nothing."""
    from gec_meta.data.datasets import load_seeda
    from gec_meta.meta.aggregation import Average
    from gec_meta.meta.task import Task
    from gec_meta.report.tables import single_run_markdown

    ds = load_seeda(data_root, "base")
    metric, backend = make(model_name="usage")
    backend.pricing = type(backend.pricing)(0.5, 2.0)
    result = Task(ds, metric, Average(), window=None, spa_permutations=0).run()
    usage = result.timing["usage"]
    # Per sentence, its distinct outputs in prompts of at most 5 (App. A).
    prompts = sum(math.ceil(len({h[n] for h in ds.hypotheses}) / 5) for n in range(len(ds.sources)))
    assert (usage["prompts"], usage["answers_made"], usage["requests"], usage["cache_hits"]) == (prompts,) * 3 + (0,)
    assert usage["answer_retries"] == 0 and usage["price"] == 0.0  # the scripted backend counts no tokens
    assert "usage" not in result.to_json(timing=False) and "timing" not in result.to_json(timing=False)
    assert "## Cost of the statistics (this run)" in single_run_markdown(result.to_json(timing=False), usage)
    again = Task(ds, make(model_name="usage")[0], Average(), window=None, spa_permutations=0).run()
    assert again.timing["usage"]["prompts"] == again.timing["usage"]["answers_made"] == 0
