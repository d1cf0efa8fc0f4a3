"""LLM post-editing (``llm_pe``): the n-gram overlap computed by hand, and the metric against the
project's loopback OpenAI-compatible server (:class:`gec_meta.llm.serve.ChatCompletionsServer`)
whose 'model' answers scripted post-edits — dedup of identical outputs, malformed answers
retried then NaN, the answer cache, the journal of a killed run, and concurrency."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from gec_meta.errors import ConfigError
from gec_meta.llm.backends import ChatBackend, Decoding
from gec_meta.llm.openai import OpenAICompatibleChat
from gec_meta.llm.parsing import parse_sentence
from gec_meta.llm.serve import ChatCompletionsServer
from gec_meta.metrics.llm import DryRunFinished, MissingAnswersWarning, missing_count
from gec_meta.metrics.llm_pe import LLMPostEdit
from gec_meta.metrics.ngram.overlap import ngram_overlap, text_overlap, tokenize


def mean(*fractions) -> float:
    return float(sum(fractions, Fraction(0)) / len(fractions))


# --------------------------------------------------------------------------- the overlap
def test_overlap_of_words_by_hand():
    # output: the cat sat on mat (5 tokens); post-edit: the cat sat on the mat (6 tokens)
    # 1-grams: 5 shared of 5 + 6; 2-grams: {the cat, cat sat, sat on} of 4 + 5;
    # 3-grams: {the cat sat, cat sat on} of 3 + 4; 4-grams: {the cat sat on} of 2 + 3.
    expected = mean(Fraction(2 * 5, 11), Fraction(2 * 3, 9), Fraction(2 * 2, 7), Fraction(2 * 1, 5))
    assert text_overlap("the cat sat on mat", "the cat sat on the mat", "en") == pytest.approx(expected, abs=1e-15)
    assert text_overlap("the cat sat on the mat", "the cat sat on mat", "en") == pytest.approx(expected, abs=1e-15)


def test_overlap_of_chinese_characters_by_hand():
    # 我爱北京 / 我爱北京。: 4 of 4 + 5 characters, 3 of 3 + 4 bigrams, 2 of 2 + 3, 1 of 1 + 2.
    expected = mean(Fraction(8, 9), Fraction(6, 7), Fraction(4, 5), Fraction(2, 3))
    assert text_overlap("我爱北京", "我爱北京。", "zh") == pytest.approx(expected, abs=1e-15)
    assert tokenize("我 爱北京", "zh") == ["我", "爱", "北", "京"]
    assert tokenize("我爱北京", "en") == ["我爱北京"]  # one word without the zh rule


def test_overlap_edge_cases():
    assert text_overlap("Det är bra.", "Det är bra .", "sv") == 1.0  # punctuation split off either way
    assert tokenize("Мы идём, да?", "ru") == ["Мы", "идём", ",", "да", "?"]
    assert text_overlap("a", "a", "en") == 1.0  # only the 1-grams exist: the other orders are left out
    assert text_overlap("x y", "z w", "en") == 0.0
    assert ngram_overlap([], [], 4) == 1.0
    # "a b" against "a b c d": 2-of-2+4 unigrams, 1-of-1+3 bigrams, 3- and 4-grams only on one side (0).
    assert text_overlap("a b", "a b c d", "en") == pytest.approx(mean(Fraction(4, 6), Fraction(2, 4), 0, 0))


def test_parse_sentence_is_strict():
    assert parse_sentence("  He goes home .\n") == ("He goes home .", None)
    assert parse_sentence("") == (None, "empty answer")
    assert parse_sentence("Sure!\nHe goes home .") == (None, "2 lines (expected the sentence on one line)")
    assert parse_sentence("He goes home .\n\nI added a verb.", first_line=True) == ("He goes home .", None)
    assert parse_sentence(" \n", first_line=True) == (None, "empty answer")


def test_prompt_renders_the_reviewed_text():
    """The shipped prompt, rendered (reviewed by hand: tests/golden/llm/llm_pe_*.txt)."""
    from pathlib import Path

    from gec_meta.llm.prompts import Context, PromptTemplate

    golden = Path(__file__).parent / "golden" / "llm"
    template = PromptTemplate("llm_pe")
    swedish = template.render("Hon har två katt .", Context(), ["Hon har två katter ."], {"language": "Swedish"})
    assert swedish == (golden / "llm_pe_sv.txt").read_text(encoding="utf-8").rstrip("\n")
    english = template.render("He go to school yesterday .", Context("I was ill .", "It rained ."),
                              ["He went to school yesterday ."], {"language": "English"})
    assert english == (golden / "llm_pe_en_context.txt").read_text(encoding="utf-8").rstrip("\n")


# --------------------------------------------------------------------------- the fake server
SOURCES = ["he go to school .", "she like apples ."]
HYPS = [  # 4 systems; sentence 0 has 2 distinct outputs, sentence 1 has 3
    ["he go to school .", "she like apples ."],
    ["he goes to school .", "she likes apples ."],
    ["he go to school .", "she like apple ."],
    ["he goes to school .", "she likes apples ."],
]
POST_EDITS = {  # the scripted model's post-edit of each output
    "he go to school .": "he goes to school .",
    "he goes to school .": "he goes to school .",
    "she like apples .": "she likes apples .",
    "she likes apples .": "she likes apples .",
    "she like apple .": "she likes apples .",
}
# By hand (tokens split on spaces here): "he go to school ." vs "he goes to school .":
# 1-grams 4 of 5+5, 2-grams {to school, school .} 2 of 4+4, 3-grams {to school .} 1 of 3+3, 4-grams 0.
GO = mean(Fraction(8, 10), Fraction(4, 8), Fraction(2, 6), Fraction(0))
# "she like apples ." vs "she likes apples .": 3 of 4+4, {apples .} 1 of 3+3, 0 of 2+2, 0 of 1+1.
LIKE = mean(Fraction(6, 8), Fraction(2, 6), Fraction(0), Fraction(0))
# "she like apple ." vs "she likes apples .": {she, .} 2 of 4+4, then nothing shared.
APPLE = mean(Fraction(4, 8), Fraction(0), Fraction(0), Fraction(0))
EXPECTED = np.array([[GO, LIKE], [1.0, 1.0], [GO, APPLE], [1.0, 1.0]])


def correction_of(messages) -> str:
    return messages[-1]["content"].split("# correction\n", 1)[1].strip()


class PostEditor(ChatBackend):
    """The server's model: answers each correction's scripted post-edit (``script`` may replace
    an answer by a function of the decoding); records the token limit of every request."""

    kind = "scripted"

    def __init__(self, script=None):
        super().__init__("post-editor", use_cache=False)
        self.script = script or {}
        self.limits: list[int] = []

    def model_identity(self) -> str:
        return self.model

    def generate(self, messages, decoding: Decoding) -> str:
        self.limits.append(decoding.max_new_tokens)
        target = correction_of(messages)
        answer = self.script[target] if target in self.script else POST_EDITS[target]
        return answer(decoding) if callable(answer) else answer


def client(server, **options) -> OpenAICompatibleChat:
    return OpenAICompatibleChat("post-editor", server.url, api_key_env=None, timeout=30, http_retries=0, **options)


def distinct_pairs(hyps) -> int:
    return sum(len({h[n] for h in hyps}) for n in range(len(hyps[0])))


@pytest.fixture()
def server():
    with ChatCompletionsServer(PostEditor()) as s:
        yield s


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_scores_are_the_hand_overlaps_and_identical_outputs_are_asked_once(server, cache):
    metric = LLMPostEdit(llm=client(server)).bind(SOURCES, HYPS, ())
    stats = metric.statistics(SOURCES, HYPS)
    assert stats.shape == (4, 2, 1, 2) and missing_count(stats) == 0
    np.testing.assert_allclose(metric.sentence_scores(stats), EXPECTED, rtol=0, atol=1e-15)
    np.testing.assert_allclose(metric.corpus_scores(stats), EXPECTED.mean(axis=1), rtol=0, atol=1e-15)
    assert server.requests == distinct_pairs(HYPS) == 5 and set(server.bodies.values()) == {1}
    assert server.backend.limits == [256] * 5  # the metric's max_new_tokens, not llm.max_new_tokens
    usage = metric.usage()
    assert (usage["prompts"], usage["answers_made"], usage["requests"], usage["cache_hits"]) == (5, 5, 5, 0)
    assert not metric.needs_references


def test_malformed_answers_are_retried_then_missing(cache):
    script = {
        # never one line: 1 + 2 retries, then missing
        "she like apple .": lambda d: "" if d.temperature == 0 else "Here it is:\nshe likes apples .",
        # greedy answer has two lines; the first retry (sampling, seed + 1) is valid
        "he go to school .": lambda d: "he goes\nto school ." if d.temperature == 0 else "he goes to school .",
    }
    with ChatCompletionsServer(PostEditor(script)) as server:
        metric = LLMPostEdit(llm=client(server), max_retries=2, retry_temperature=0.5).bind(SOURCES, HYPS, ())
        with pytest.warns(MissingAnswersWarning, match="1 of 5 targets"):
            stats = metric.statistics(SOURCES, HYPS)
        assert server.requests == 5 + 1 + 2
    scores = metric.sentence_scores(stats)
    assert np.isnan(scores[2, 1]) and missing_count(stats) == 1
    expected = EXPECTED.copy()
    expected[2, 1] = np.nan
    np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-15)
    log = metric.run_log
    assert (log.valid_first, log.valid_after_retry, log.failed, log.retries) == (3, 1, 1, 3)
    assert metric.corpus_scores(stats)[2] == pytest.approx(GO)  # the mean skips the missing sentence


def test_a_rerun_asks_nothing_and_languages_are_cached_apart(server, cache):
    first = LLMPostEdit(llm=client(server)).bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    again = LLMPostEdit(llm=client(server)).bind(SOURCES, HYPS, ())
    np.testing.assert_array_equal(again.statistics(SOURCES, HYPS), first)
    assert server.requests == 5 and again.usage()["cache_hits"] == 5
    swedish = LLMPostEdit(llm=client(server), language="sv").bind(SOURCES, HYPS, ())
    swedish.statistics(SOURCES, HYPS)  # another prompt ("learner of Swedish"): asked again
    assert server.requests == 10 and swedish.cache_key() != again.cache_key()
    assert "language=sv" in swedish.signature() and "overlap=f1-1..4-words" in swedish.signature()


def test_a_killed_run_resumes_from_its_journal(server, cache):
    metric = LLMPostEdit(llm=client(server)).bind(SOURCES, HYPS, ())
    jobs = metric.plan(SOURCES, HYPS)
    metric.score_prompts(jobs[:3])  # answered and journaled, not yet in the cache ...
    metric.llm._journal._file.close()  # ... when the process dies
    assert server.requests == 3 and list((cache / "llm-journal").rglob("*.jsonl"))
    resumed = LLMPostEdit(llm=client(server)).bind(SOURCES, HYPS, ())
    stats = resumed.statistics(SOURCES, HYPS)
    assert server.requests == 5 and set(server.bodies.values()) == {1}  # the other 2 only
    assert resumed.usage()["cache_hits"] == 3
    np.testing.assert_allclose(resumed.sentence_scores(stats), EXPECTED, rtol=0, atol=1e-15)
    assert not list((cache / "llm-journal").rglob("*.jsonl"))


def test_concurrent_requests_give_the_same_statistics(server, tmp_path, monkeypatch):
    runs = []
    for concurrency in (1, 8):
        monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / f"cache-{concurrency}"))
        metric = LLMPostEdit(llm=client(server, concurrency=concurrency)).bind(SOURCES, HYPS, ())
        runs.append(metric.statistics(SOURCES, HYPS))
    np.testing.assert_array_equal(runs[0], runs[1])
    assert server.requests == 10 and set(server.bodies.values()) == {2}


def test_chinese_outputs_are_compared_by_characters(server, cache):
    script = {"我爱北京": "我爱北京。", "我爱北京。": "我爱北京。"}
    with ChatCompletionsServer(PostEditor(script)) as zh_server:
        srcs, hyps = ["我爱北京"], [["我爱北京"], ["我爱北京。"]]
        metric = LLMPostEdit(llm=client(zh_server), language="zh").bind(srcs, hyps, ())
        scores = metric.sentence_scores(metric.statistics(srcs, hyps))
        prompt = metric.plan(srcs, hyps)[0].prompt
    assert scores[:, 0] == pytest.approx([mean(Fraction(8, 9), Fraction(6, 7), Fraction(4, 5), Fraction(2, 3)), 1.0])
    assert "a learner of Chinese" in prompt and "fluent Chinese sentence" in prompt


def test_dry_run_prints_the_prompts_and_asks_nothing(server, cache, capsys):
    metric = LLMPostEdit(llm=client(server), dry_run=True, dry_run_show=1).bind(SOURCES, HYPS, ())
    with pytest.raises(DryRunFinished):
        metric.statistics(SOURCES, HYPS)
    out = capsys.readouterr().out
    assert server.requests == 0 and out.count("----- prompt ") == 1
    assert "5 prompts (5 targets) for 2 sentences; 0 answered in the cache; 5 model calls to make" in out
    assert "answer tokens: at most 1280 (256 per call)" in out


def test_configs_compose_and_bad_options_are_errors():
    from gec_meta.api import load_metric

    m = load_metric("llm_pe", "llm=openai", "llm.base_url=http://127.0.0.1:9/v1", "llm.model=m",
                    "metric.language=sv")
    assert isinstance(m, LLMPostEdit) and m.language == "sv" and m.context == "none"
    chat = OpenAICompatibleChat("m", "http://127.0.0.1:9/v1", api_key_env=None)
    with pytest.raises(ConfigError, match="metric.language='xx' is not a language of the post-editing prompt"):
        LLMPostEdit(llm=chat, language="xx")
    with pytest.raises(ConfigError, match="metric.max_targets"):
        LLMPostEdit(llm=chat, max_targets=2)
    with pytest.raises(ConfigError, match="metric.scoring='expected'"):
        LLMPostEdit(llm=chat, scoring="expected")


def test_first_line_answers_take_the_sentence_before_the_explanation(cache):
    chatty = {k: v + "\n\nThe correction makes the sentence grammatical." for k, v in POST_EDITS.items()}
    with ChatCompletionsServer(PostEditor(chatty)) as server:
        strict = LLMPostEdit(llm=client(server), max_retries=0).bind(SOURCES, HYPS, ())
        with pytest.warns(MissingAnswersWarning, match="5 of 5 targets"):
            assert missing_count(strict.statistics(SOURCES, HYPS)) == 8
        lenient = LLMPostEdit(llm=client(server), max_retries=0, answer="first_line").bind(SOURCES, HYPS, ())
        stats = lenient.statistics(SOURCES, HYPS)
        assert server.requests == 5  # the same answers, from the cache
    np.testing.assert_allclose(lenient.sentence_scores(stats), EXPECTED, rtol=0, atol=1e-15)
    assert "answer=first_line" in lenient.signature() and lenient.cache_key() != strict.cache_key()


def test_a_benchmark_run_through_the_task(data_root, cache):
    """SEEDA Base through :class:`gec_meta.meta.task.Task` with an in-process 'model' that
    answers the learner's sentence as the post-edit: one prompt per distinct (sentence, output),
    every system score the mean overlap of its outputs with the sources, the usage recorded."""
    from gec_meta.data.datasets import load_seeda
    from gec_meta.meta.aggregation import Average
    from gec_meta.meta.task import Task

    class Undo(PostEditor):
        def generate(self, messages, decoding):
            return messages[-1]["content"].split("# learner's sentence\n", 1)[1].split("\n\n# correction", 1)[0]

    ds = load_seeda(data_root, "base")
    result = Task(ds, LLMPostEdit(llm=Undo()), Average(), window=None, spa_permutations=0).run()
    pairs = distinct_pairs(ds.hypotheses)
    usage = result.timing["usage"]
    assert (usage["prompts"], usage["answers_made"], usage["cache_hits"]) == (pairs, pairs, 0)
    for s, system in enumerate(ds.systems):
        expected = np.mean([text_overlap(h, src, "en") for h, src in zip(ds.hypotheses[s], ds.sources)])
        assert result.system_scores[system] == pytest.approx(expected, abs=1e-12)
