"""The vLLM backend: vLLM's offline engine (``vllm.LLM``) in this process, on the machine's GPUs
(see :mod:`gec_meta.llm.backends` for the cache and decoding).

    pip install "gec-meta[vllm]"
    python run.py metric=llm_s llm=vllm llm.model=Qwen/Qwen2.5-7B-Instruct aggregation=trueskill

The prompts go to ``LLM.chat`` (the model's own chat template) ``batch_size`` conversations at
a time, each with its own ``SamplingParams`` (temperature, seed, ``max_tokens``); vLLM schedules
them with continuous batching.  Structured output (``structured: true``) is vLLM's guided JSON
decoding: ``SamplingParams(structured_outputs=StructuredOutputsParams(json=schema))`` (vLLM ≥
0.12, docs.vllm.ai "Structured Outputs"), or ``guided_decoding=GuidedDecodingParams(json=schema)``
for vLLM 0.6-0.11, whichever the installed vLLM has.  Answers are journaled and cached as each
batch returns (a killed run resumes from there).

The same engine behind an HTTP server is the other route: ``vllm serve MODEL`` and
``llm=openai llm.base_url=http://HOST:8000/v1 llm.model=MODEL llm.concurrency=64``.

vLLM batches requests of different lengths together and its kernels depend on the batch, so
greedy answers can differ from one run to another where two tokens are near-tied (vLLM's
documentation on reproducibility); the answer cache makes a rerun return the recorded answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from gec_meta.fields import check_fields, integer, open_interval, valid
from gec_meta.errors import ConfigError
from gec_meta.llm.backends import Answer, ChatBackend, Decoding, Made, Messages

INSTALL = "pip install 'gec-meta[vllm]' (vLLM needs a CUDA GPU; or serve the model with `vllm serve` and use llm=openai)"


@dataclass(frozen=True)
class VLLMOptions:
    """Fields (a ConfigError naming ``llm.<field>`` when out of range):
        batch_size: conversations handed to ``LLM.chat`` at once (answers are cached per batch).
        gpu_memory_utilization: the share of GPU memory vLLM may take, in (0, 1).
        tensor_parallel_size: GPUs the model is split over."""

    batch_size: int = field(default=256, metadata=valid(integer(1)))
    gpu_memory_utilization: float = field(default=0.9, metadata=valid(open_interval(0, 1)))
    tensor_parallel_size: int = field(default=1, metadata=valid(integer(1)))

    def __post_init__(self):
        check_fields(self, "llm")


class VLLMChat(ChatBackend):
    """A model run by vLLM's offline engine (module docstring).

    Args (besides :class:`ChatBackend`'s):
        model: a Hugging Face Hub id or a local folder (what ``vllm.LLM(model=...)`` takes).
        batch_size, gpu_memory_utilization, tensor_parallel_size: :class:`VLLMOptions`.
        dtype: the weights' dtype (``auto``: the checkpoint's).
        max_model_len: the context length vLLM reserves (None: the model's).
        engine_options: further keyword arguments of ``vllm.LLM`` (e.g. ``{enforce_eager: true}``).
    """

    kind = "vllm"
    answers_made_here = True

    def __init__(self, model: str, temperature: float = 0.0, seed: int = 0, max_new_tokens: int = 128,
                 system_prompt: str | None = None, use_cache: bool = True, flush_every: int = 0,
                 structured: bool = False, config_key: str = "llm", batch_size: int = 256, dtype: str = "auto",
                 gpu_memory_utilization: float = 0.9, tensor_parallel_size: int = 1, max_model_len: int | None = None,
                 engine_options: dict | None = None, price_per_1k_input_tokens: float | None = None,
                 price_per_1k_output_tokens: float | None = None):
        super().__init__(model, temperature, seed, max_new_tokens, system_prompt, use_cache, flush_every,
                         config_key, structured, price_per_1k_input_tokens, price_per_1k_output_tokens)
        self.options = VLLMOptions(batch_size, gpu_memory_utilization, tensor_parallel_size)
        self.dtype = dtype
        self.max_model_len = max_model_len
        self.engine_options = dict(engine_options or {})
        self._engine = None
        self._tokenizer = None

    @staticmethod
    def vllm():
        """The ``vllm`` module, or a one-line ConfigError saying how to install it."""
        try:
            import vllm
        except ImportError:
            raise ConfigError(f"llm=vllm: vLLM is not installed; {INSTALL}") from None
        return vllm

    def model_identity(self) -> str:
        from gec_meta.models.loading import package_version

        return f"{self.model}|dtype={self.dtype}|vllm:{package_version('vllm')}"

    def scheduling(self) -> dict:
        return {"batch_size": self.options.batch_size, "tensor_parallel_size": self.options.tensor_parallel_size}

    @property
    def engine(self):
        """The ``vllm.LLM`` engine (loaded on first use)."""
        if self._engine is None:
            vllm = self.vllm()
            options = {"model": self.model, "dtype": self.dtype, "seed": self.decoding.seed,
                       "gpu_memory_utilization": self.options.gpu_memory_utilization,
                       "tensor_parallel_size": self.options.tensor_parallel_size, **self.engine_options}
            if self.max_model_len is not None:
                options["max_model_len"] = self.max_model_len
            self._engine = vllm.LLM(**options)
        return self._engine

    def count_tokens(self, messages: Messages) -> tuple[int, bool]:
        """Prompt tokens through the model's tokenizer and chat template (a dry run loads the
        tokenizer only, not the engine)."""
        if self._tokenizer is None:
            if self._engine is not None:
                self._tokenizer = self._engine.get_tokenizer()
            else:
                from transformers import AutoTokenizer

                self._tokenizer = AutoTokenizer.from_pretrained(self.model)
        ids = self._tokenizer.apply_chat_template(list(messages), add_generation_prompt=True, tokenize=True)
        return len(ids["input_ids"] if isinstance(ids, dict) else ids), True

    def sampling_params(self, decoding: Decoding, schema: dict | None):
        """vLLM's ``SamplingParams`` of one request (module docstring)."""
        vllm = self.vllm()
        options = {"temperature": decoding.temperature, "seed": decoding.seed, "max_tokens": decoding.max_new_tokens,
                   "top_p": 1.0}
        if schema is not None:
            from vllm import sampling_params as sp

            if hasattr(sp, "StructuredOutputsParams"):  # vLLM >= 0.12
                options["structured_outputs"] = sp.StructuredOutputsParams(json=schema)
            else:  # vLLM 0.6-0.11
                options["guided_decoding"] = sp.GuidedDecodingParams(json=schema)
        return vllm.SamplingParams(**options)

    def generate(self, messages: Messages, decoding: Decoding, schema: dict | None = None) -> str:
        return next(iter(self.generate_many([(messages, decoding, schema)]))).answer.text

    def generate_many(self, items: Sequence[tuple[Messages, Decoding, dict | None]]) -> Iterator[Made]:
        """``batch_size`` conversations per ``LLM.chat`` call, yielded when the call returns."""
        size = self.options.batch_size
        for start in range(0, len(items), size):
            chunk = items[start:start + size]
            params = [self.sampling_params(d, s) for _, d, s in chunk]
            t0 = time.perf_counter()
            outputs = self.engine.chat([list(m) for m, _, _ in chunk], params, use_tqdm=False)
            seconds = (time.perf_counter() - t0) / len(chunk)
            for j, out in enumerate(outputs):
                completion = out.outputs[0]
                yield Made(start + j, Answer(completion.text), seconds, len(out.prompt_token_ids or ()),
                           len(completion.token_ids or ()))
