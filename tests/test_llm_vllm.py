"""The vLLM backend (``llm=vllm``) without vLLM: a stand-in ``vllm`` module that mimics the
documented offline API — ``vllm.LLM(model=..., ...)``, ``LLM.chat(conversations,
sampling_params, use_tqdm=...)`` returning ``RequestOutput``-like objects (``.prompt_token_ids``,
``.outputs[0].text``, ``.outputs[0].token_ids``), ``vllm.SamplingParams(temperature, seed,
max_tokens, top_p, structured_outputs=...)`` and ``vllm.sampling_params.StructuredOutputsParams(json=...)``
(vLLM >= 0.12, docs.vllm.ai "Structured Outputs") or ``GuidedDecodingParams(json=...)`` with
``guided_decoding=`` (vLLM 0.6-0.11, docs.vllm.ai/en/v0.6.6 "Offline Inference Structured Outputs").
"""

from __future__ import annotations

import json
import sys
import types
from types import SimpleNamespace

import numpy as np
import pytest

from gec_meta.errors import ConfigError
from gec_meta.llm.parsing import answer_schema

SOURCES = ["he go to school .", "she like apples ."]
HYPS = [["he goes to school .", "she likes apples ."], ["he went to school .", "she like apples ."],
        ["he goes to school .", "she like apples ."]]


def fake_vllm(modern: bool = True):
    """A stand-in ``vllm`` package recording what the backend asks of it."""
    calls = {"engines": [], "chats": []}

    class Params:
        def __init__(self, **kwargs):
            self.__dict__.update(kwargs)

    class StructuredOutputsParams(Params):
        pass

    class GuidedDecodingParams(Params):
        pass

    class SamplingParams(Params):
        def __init__(self, temperature=1.0, seed=None, max_tokens=16, top_p=1.0, **kwargs):
            allowed = {"structured_outputs"} if modern else {"guided_decoding"}
            assert set(kwargs) <= allowed, kwargs  # only fields this vLLM version has
            super().__init__(temperature=temperature, seed=seed, max_tokens=max_tokens, top_p=top_p, **kwargs)

    class LLM:
        def __init__(self, model, **options):
            calls["engines"].append((model, options))

        def chat(self, messages, sampling_params=None, use_tqdm=True, **kwargs):
            assert isinstance(messages, list) and all(isinstance(c, list) for c in messages)
            assert isinstance(sampling_params, list) and len(sampling_params) == len(messages)
            calls["chats"].append((messages, sampling_params))
            outs = []
            for conversation, params in zip(messages, sampling_params):
                block = conversation[-1]["content"].split("# targets\n", 1)[1].split("\n\n# output format", 1)[0]
                n = len(block.split("\n"))
                text = json.dumps({f"target{i}_score": 1 + (len(t) + i) % 5
                                   for i, t in enumerate(block.split("\n"), 1)})
                outs.append(SimpleNamespace(prompt_token_ids=list(range(10 * n)),
                                            outputs=[SimpleNamespace(text=text, token_ids=list(range(3 + n)))]))
            return outs

    module = types.ModuleType("vllm")
    module.LLM, module.SamplingParams = LLM, SamplingParams
    sampling = types.ModuleType("vllm.sampling_params")
    if modern:
        sampling.StructuredOutputsParams = StructuredOutputsParams
    else:
        sampling.GuidedDecodingParams = GuidedDecodingParams
    module.sampling_params = sampling
    return module, sampling, calls


@pytest.fixture(params=[True, False], ids=["vllm>=0.12", "vllm<0.12"])
def vllm_stub(request, monkeypatch, tmp_path):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path))  # each stand-in answers afresh
    module, sampling, calls = fake_vllm(request.param)
    monkeypatch.setitem(sys.modules, "vllm", module)
    monkeypatch.setitem(sys.modules, "vllm.sampling_params", sampling)
    return request.param, calls


def test_vllm_backend_builds_requests_and_parses_answers(vllm_stub):
    from gec_meta.api import load_metric

    modern, calls = vllm_stub
    metric = load_metric("llm_s", "llm=vllm", "llm.model=org/chat-model", "llm.structured=true", "llm.batch_size=2",
                         "llm.max_model_len=4096", "+llm.engine_options.enforce_eager=true", context="none")
    stats = metric.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS)
    (model, options), = calls["engines"]
    assert model == "org/chat-model" and options["max_model_len"] == 4096 and options["enforce_eager"] is True
    assert options["seed"] == 0 and options["tensor_parallel_size"] == 1
    jobs = metric.plan(SOURCES, HYPS)
    assert len(jobs) == 2 and [len(c[0]) for c in calls["chats"]] == [2]  # one LLM.chat call of 2 conversations
    conversations, params = calls["chats"][0]
    assert conversations == [[{"role": "user", "content": j.prompt}] for j in jobs]
    for job, p in zip(jobs, params):
        assert (p.temperature, p.seed, p.max_tokens, p.top_p) == (0.0, 0, 128, 1.0)
        guided = p.structured_outputs if modern else p.guided_decoding
        assert guided.json == answer_schema(len(job.targets))
    # The stand-in's answer: target i scores 1 + (len(target) + i) % 5.
    for job in jobs:
        for i, target in enumerate(job.targets, 1):
            s = [h[job.sentence] for h in HYPS].index(target)
            assert stats[s, job.sentence, 0, 0] == 1 + (len(target) + i) % 5
    usage = metric.usage()
    assert usage["answers_made"] == 2 and usage["requests"] == 2 and usage["batch_size"] == 2
    assert usage["prompt_tokens"] == 10 * sum(len(j.targets) for j in jobs)
    # A rerun reads the cache: no engine, no call.
    again = load_metric("llm_s", "llm=vllm", "llm.model=org/chat-model", "llm.structured=true", context="none")
    np.testing.assert_array_equal(again.bind(SOURCES, HYPS, ()).statistics(SOURCES, HYPS), stats)
    assert len(calls["engines"]) == 1 and len(calls["chats"]) == 1


def test_free_generation_sends_no_schema(vllm_stub):
    from gec_meta.llm.vllm import VLLMChat

    _, calls = vllm_stub
    chat = VLLMChat("org/chat-model", temperature=0.5, seed=3, max_new_tokens=64, use_cache=False)
    text = chat.complete("x\n# targets\nabc\n\n# output format")
    assert json.loads(text) == {"target1_score": 1 + (3 + 1) % 5}
    (_, params), = calls["chats"]
    assert (params[0].temperature, params[0].seed, params[0].max_tokens) == (0.5, 3, 64)
    assert not hasattr(params[0], "structured_outputs") and not hasattr(params[0], "guided_decoding")


def test_without_vllm_one_line_says_how_to_install(monkeypatch):
    from gec_meta.llm.vllm import VLLMChat

    monkeypatch.setitem(sys.modules, "vllm", None)  # import vllm raises ImportError
    chat = VLLMChat("org/chat-model", use_cache=False)
    with pytest.raises(ConfigError, match=r"^llm=vllm: vLLM is not installed; pip install 'gec-meta\[vllm\]'") as exc:
        chat.complete("hello")
    assert "\n" not in str(exc.value)


def test_vllm_options_are_range_checked():
    from gec_meta.llm.vllm import VLLMChat

    with pytest.raises(ConfigError, match=r"llm\.gpu_memory_utilization must be a number in \(0, 1\), got 1.5"):
        VLLMChat("m", gpu_memory_utilization=1.5)
    with pytest.raises(ConfigError, match=r"llm\.batch_size must be an integer >= 1, got 0"):
        VLLMChat("m", batch_size=0)
