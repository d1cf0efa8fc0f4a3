"""The OpenAI-compatible backend against a real HTTP server on loopback.

The server (:class:`gec_meta.llm.serve.ChatCompletionsServer`, ``http.server`` in a thread)
serves a tiny causal LM built here through the chat-completions protocol: a 2-layer GPT-2 with
a word-level tokenizer and a chat template, trained for a few steps so that its greedy answer
to the prompts of this file is the JSON ``{"target1_score": 4, "target2_score": 2}``.  The client is
:class:`gec_meta.llm.openai.OpenAICompatibleChat` (``urllib``): no mock object anywhere.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gec_meta.errors import ConfigError
from gec_meta.llm.backends import Answer, Decoding, LLMBackendError, integer_object_schema
from gec_meta.llm.local import TransformersChat
from gec_meta.llm.openai import OpenAICompatibleChat
from gec_meta.llm.parsing import answer_schema, parse_answer
from gec_meta.llm.serve import ChatCompletionsServer
from gec_meta.metrics.llm import LLMSentence, missing_count

ANSWER = '{"target1_score": 4, "target2_score": 2}'
CHAT_TEMPLATE = ("{% for m in messages %}<|im_start|> {{ m['role'] }} {{ m['content'] }} <|im_end|> {% endfor %}"
                 "{% if add_generation_prompt %}<|im_start|> assistant {% endif %}")
SOURCES = ["he go to school .", "she like apples ."]
HYPS = [["he goes to school .", "she likes apples ."], ["he went to school .", "she like apples ."],
        ["he goes to school .", "she like apples ."]]


@pytest.fixture(scope="module")
def tiny_chat_model():
    """(model, tokenizer): a tiny GPT-2 trained to answer ANSWER after the assistant marker."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    words = ["[UNK]", "<|im_start|>", "<|im_end|>", "user", "assistant", "system", *ANSWER.split(), "1", "2", "3",
             "4", "5", '"target3_score":',
             *sorted({w for s in SOURCES + [h for hs in HYPS for h in hs] for w in s.split()})]
    vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
    raw = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    raw.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, unk_token="[UNK]", eos_token="<|im_end|>",
                                  bos_token="<|im_start|>", pad_token="<|im_end|>")
    tok.chat_template = CHAT_TEMPLATE
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=320, n_embd=32, n_layer=2, n_head=2,
                                       bos_token_id=vocab["<|im_start|>"], eos_token_id=vocab["<|im_end|>"]))
    # Teach it the answer: one batch of short and long prompts and the metric prompts of this
    # file, loss on the answer tokens only; 10-30 Adam steps, ~1 s.
    answer_ids = tok(ANSWER + " <|im_end|>", add_special_tokens=False)["input_ids"]
    contents = ["word " * k + SOURCES[0] for k in (0, 120)]
    contents += [job.prompt for job in LLMSentence(llm=TransformersChat("t", model_obj=model, tokenizer_obj=tok),
                                                   context=None).plan(SOURCES, HYPS)]  # this file's prompts
    prefixes = [tok.apply_chat_template([{"role": "user", "content": c}], add_generation_prompt=True,
                                        tokenize=True, return_dict=True)["input_ids"] for c in contents]
    length = max(len(p) for p in prefixes) + len(answer_ids)
    ids = torch.full((len(prefixes), length), vocab["<|im_end|>"])
    mask = torch.zeros_like(ids)
    labels = torch.full_like(ids, -100)
    for j, prefix in enumerate(prefixes):
        seq = list(prefix) + answer_ids
        ids[j, : len(seq)] = torch.tensor(seq)
        mask[j, : len(seq)] = 1
        labels[j, len(prefix): len(seq)] = torch.tensor(answer_ids)
    optim = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(1, 101):  # until every training prefix is answered right (~10-30 steps)
        model.train()
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        optim.zero_grad()
        loss.backward()
        optim.step()
        if step % 10 == 0:
            model.eval()
            with torch.no_grad():
                logits = model(input_ids=ids, attention_mask=mask).logits
            ok = all(torch.equal(logits[j, len(p) - 1: len(p) - 1 + len(answer_ids)].argmax(-1),
                                 torch.tensor(answer_ids)) for j, p in enumerate(prefixes))
            if ok:
                break
    model.eval()
    return model, tok


@pytest.fixture()
def served(tiny_chat_model, monkeypatch):
    model, tok = tiny_chat_model
    local = TransformersChat("tiny-gpt2-chat", model_obj=model, tokenizer_obj=tok, use_cache=False)
    monkeypatch.setenv("GEC_META_TEST_KEY", "sk-loopback-test")
    with ChatCompletionsServer(local, api_key="sk-loopback-test", model_name="tiny") as server:
        yield server, local


def client(server, **options) -> OpenAICompatibleChat:
    return OpenAICompatibleChat("tiny", server.url, api_key_env="GEC_META_TEST_KEY", http_retries=0, timeout=30,
                                **options)


def test_http_answer_equals_local_generation(served):
    server, local = served
    remote = client(server)
    for prompt in (SOURCES[0], "word " * 120 + SOURCES[0]):  # two of the training prompts
        messages = remote.messages(prompt)
        via_http = remote.generate(messages, Decoding())
        assert via_http == local.generate(messages, Decoding())
        assert via_http == ANSWER  # the trained answer, greedily
    assert server.requests == 2


def test_metric_over_http_scores_and_caches(served):
    server, _ = served
    metric = LLMSentence(llm=client(server), context=None)
    stats = metric.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    # sentence 0: 2 distinct outputs, sentence 1: 2 -> two prompts, each answered 4 / 2.
    assert server.requests == 2 and metric.llm.stats.calls == 2
    assert missing_count(stats) == 0 and metric.run_log.valid_first == 2
    scores = metric.sentence_scores(stats)
    assert sorted(scores[:, 0]) == [2.0, 4.0, 4.0] or sorted(scores[:, 0]) == [2.0, 2.0, 4.0]
    assert scores[0, 0] == scores[2, 0]  # identical outputs share the score
    again = LLMSentence(llm=client(server), context=None)
    stats2 = again.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    assert server.requests == 2 and again.llm.stats.calls == 0 and again.llm.stats.cache_hits == 2
    np.testing.assert_array_equal(stats, stats2)


def test_wrong_or_missing_key_is_an_error_naming_the_variable(served, monkeypatch):
    server, _ = served
    monkeypatch.delenv("GEC_META_TEST_KEY")
    with pytest.raises(LLMBackendError, match="GEC_META_TEST_KEY"):
        client(server).complete("he go to school .")
    assert server.requests == 0


def test_unreachable_server_is_an_error_not_a_missing_answer():
    remote = OpenAICompatibleChat("tiny", "http://127.0.0.1:9/v1", api_key_env=None, http_retries=0, timeout=5)
    with pytest.raises(LLMBackendError, match="base_url"):
        remote.complete("he go to school .")


def test_structured_output_is_schema_valid_and_equal_over_http(served, tiny_chat_model):
    server, _ = served
    model, tok = tiny_chat_model
    structured_local = TransformersChat("tiny-gpt2-chat", model_obj=model, tokenizer_obj=tok, structured=True,
                                        reuse_prefix=False)
    remote = client(server, structured=True)
    for n, prompt in ((2, "he go to school ."), (3, "word " * 30 + "she like apples .")):
        schema = answer_schema(n)
        mine = structured_local.generate(structured_local.messages(prompt), Decoding(), schema)
        assert isinstance(mine, Answer) and parse_answer(mine.text, n).valid
        for key, probs in mine.probabilities.items():
            assert len(probs) == 5 and abs(sum(probs) - 1) < 1e-5
            chosen = parse_answer(mine.text, n).scores[int(key[6]) - 1]
            assert probs[chosen - 1] == max(probs)  # greedy = the most probable value
        assert remote.complete(prompt, Decoding(), schema) == mine.text  # response_format json_schema


def test_short_prompts_are_never_split(tiny_chat_model):
    """Prompts of fewer than MIN_TOKENS tokens (these: ~50) each run in one pass, with prefix reuse
    on or off: nothing of theirs is kept for later prompts (a short pass's values may differ in
    the last bits from a long one's: gec_meta.llm.local's module docstring), and the answers are
    the same bits.  The reuse itself: tests/test_llm_batched.py."""
    model, tok = tiny_chat_model
    prompts = ["word " * 40 + "he go to school .", "word " * 40 + "she like apples .", "word " * 45 + "he go ."]
    plain = TransformersChat("t", model_obj=model, tokenizer_obj=tok, structured=True, reuse_prefix=False)
    reuse = TransformersChat("t", model_obj=model, tokenizer_obj=tok, structured=True, reuse_prefix=True)
    for prompt in prompts:
        a = plain.generate(plain.messages(prompt), Decoding(), answer_schema(3))
        b = reuse.generate(reuse.messages(prompt), Decoding(), answer_schema(3))
        assert a.text == b.text and a.probabilities == b.probabilities
    assert plain._prefix is None and reuse._prefix is None


def test_expected_scoring_uses_the_value_probabilities(tiny_chat_model):
    model, tok = tiny_chat_model
    backend = TransformersChat("tiny-expected", model_obj=model, tokenizer_obj=tok, structured=True)
    metric = LLMSentence(llm=backend, context=None, scoring="expected")
    stats = metric.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    jobs = metric.plan(SOURCES, HYPS)
    reply = backend.answer(jobs[0].prompt, None, answer_schema(len(jobs[0].targets)))  # cached
    expected = [sum(v * p for v, p in enumerate(reply.probabilities[f"target{i}_score"], 1))
                for i in range(1, len(jobs[0].targets) + 1)]
    scores = metric.sentence_scores(stats)
    for target, value in zip(jobs[0].targets, expected):
        s = [h[0] for h in HYPS].index(target)
        assert scores[s, 0] == pytest.approx(value)
    assert len(metric.run_log.answer_scores) == len(metric.run_log.target_scores) == 4
    assert metric.signature().count("scoring=expected") == 1


def test_expected_scoring_needs_probabilities(served):
    server, _ = served
    metric = LLMSentence(llm=client(server, structured=True), context=None, scoring="expected")
    with pytest.raises(ConfigError, match="structured"):
        metric.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)


def test_structured_output_supports_only_integer_objects():
    assert integer_object_schema(answer_schema(2)) == (["target1_score", "target2_score"], 1, 5)
    with pytest.raises(LLMBackendError):
        integer_object_schema({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                               "additionalProperties": False})


def test_sampling_is_seeded(tiny_chat_model):
    model, tok = tiny_chat_model
    local = TransformersChat("t", model_obj=model, tokenizer_obj=tok, max_new_tokens=8)
    messages = local.messages("word " * 20 + SOURCES[1])
    a = local.generate(messages, Decoding(temperature=5.0, seed=3, max_new_tokens=8))
    b = local.generate(messages, Decoding(temperature=5.0, seed=3, max_new_tokens=8))
    c = local.generate(messages, Decoding(temperature=5.0, seed=4, max_new_tokens=8))
    assert a == b and a != c  # at temperature 5 the 8 tokens are near-uniform draws
