"""LLM post-editing as a reference-free metric in any language (``llm_pe``): an LLM post-edits
each system output minimally, and the output's score is its n-gram overlap with the post-edit
(Östling, Kurfalı & Caines, BEA 2025, "LLM-based post-editing as reference-free GEC evaluation").

An output that needs no further correction is left as it is (overlap 1); the more the LLM has
to change, the lower the score.  Nothing but an LLM that writes the language is needed: no
references, no language-specific model.

**What we follow and what we decided.**  Only the paper's abstract is readable here; its
prompt and its exact "simple n-gram overlap" are not, and its code is not public (the
authors' ``robertostling/gec-evaluation`` holds the code of their 2023 paper, which compared
outputs with *human* post-edits by GLEU and normalised Levenshtein distance).  Followed from the
abstract: the LLM post-edits the GEC system output; the score is an n-gram overlap between the
output and the post-edit; no reference enters the prompt (the abstract: including references
"generally does not improve agreement with human ratings").  Decided here, with the reason:

* **Prompt** (``conf/llm/prompts/llm_pe.txt``): names the language (``language``, an ISO 639-1
  code, :data:`LANGUAGES`), shows the learner's sentence (so that the post-edit can restore its
  meaning) and the system output, and asks for the post-edited output alone on one line, with
  as few changes as make it correct and fluent.  Essay context: none by default
  (``context: none``; the CoNLL-2014 neighbours of ``context: conll14`` exist for English only).
* **Similarity**: :func:`gec_meta.metrics.ngram.overlap.text_overlap` — the mean over
  n = 1..4 of the n-gram F1 (Dice) of output and post-edit; tokens are words and punctuation
  marks, characters for Chinese and Japanese.
* **Answer**: plain text, not JSON (a sentence in JSON needs escaping that small models get
  wrong, and structured output for free text is not available locally).  Parsed strictly by
  :func:`gec_meta.llm.parsing.parse_sentence`: one non-empty line, taken as it is
  (``answer: first_line`` takes the first line of a longer answer instead); a malformed
  answer is asked again ``max_retries`` times (sampling, as LLM-S/LLM-E), then the output's score
  is missing (NaN), never imputed.  An answer cut at ``max_new_tokens`` is not detectable from
  the text and is scored as it is: keep the limit well above the sentences' length.

**Machinery shared with LLM-S/LLM-E** (:class:`gec_meta.metrics.llm.LLMEvaluator`): one prompt
per distinct (sentence, output) — identical outputs of different systems are asked once —,
the backends (``llm=smollm2|openai|vllm``), batching and concurrency, the journal and the answer
cache (key: backend, model, prompt hash, decoding), dry runs, usage accounting and the missing
count.  ``llm.structured`` does not apply (answers are free text).

Statistics: shape (S, N, 1, 2), last axis (overlap, missing); the system score is the mean of
the sentence scores that are there; higher is better.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar

from gec_meta.config import integer, valid
from gec_meta.errors import ConfigError
from gec_meta.llm.parsing import ParsedAnswer, parse_sentence
from gec_meta.metrics.llm import LANGUAGE_NAMES, LLMEvaluator, PromptJob
from gec_meta.metrics.ngram.overlap import CHARACTER_LANGUAGES, MAX_ORDER, text_overlap

#: ISO 639-1 code -> the English name the prompt uses (:data:`~gec_meta.metrics.llm.LANGUAGE_NAMES`):
#: MultiGEC-2025's 12 languages (Masciolini et al. 2025), Chinese and Japanese.
LANGUAGES = {code: LANGUAGE_NAMES[code] for code in
             ("cs", "de", "el", "en", "et", "is", "it", "lv", "ru", "sl", "sv", "uk", "zh", "ja")}


@dataclass(frozen=True)
class LLMPostEdit(LLMEvaluator):
    """LLM post-editing metric; see the module docstring.

    Fields (besides :class:`LLMEvaluator`'s ``llm``, ``template``, ``context``,
    ``partition_seed``, ``max_retries``, ``retry_temperature``, ``dry_run``, ``dry_run_show``):
        language: ISO 639-1 code of the texts (:data:`LANGUAGES`): named in the prompt, and
            characters are the overlap's tokens for ``zh`` and ``ja``.
        answer: ``line`` (the answer must be one line: the post-edit) or ``first_line`` (its
            first non-empty line is the post-edit, the rest is ignored: for small chat models
            that explain their edit after it, as SmolLM2-135M does).
        max_new_tokens: the post-edit's token limit (replaces ``llm.max_new_tokens``, which is
            sized for the evaluators' JSON scores).
    """

    template: str = "llm_pe"
    context: str | None = "none"
    max_targets: int = field(default=1, metadata=valid(integer(1, hi=1)))
    language: str = "en"
    answer: str = "line"
    max_new_tokens: int = field(default=256, metadata=valid(integer(1)))

    name: ClassVar[str] = "llm_pe"
    version: ClassVar[str] = "1"

    def __post_init__(self):
        super().__post_init__()
        if self.language not in LANGUAGES:
            raise ConfigError(f"metric.language={self.language!r} is not a language of the post-editing prompt; "
                              f"ISO 639-1 codes known: {sorted(LANGUAGES)}")
        if self.answer not in ("line", "first_line"):
            raise ConfigError(f"metric.answer must be 'line' or 'first_line', got {self.answer!r}")
        if self.scoring != "answer":
            raise ConfigError(f"metric.scoring={self.scoring!r}: llm_pe scores the post-edit's overlap ('answer')")

    def options(self) -> dict[str, object]:
        kept = ("llm", "decoding", "template", "context", "partition_seed", "max_retries", "retry_temperature")
        tokens = "chars" if self.language in CHARACTER_LANGUAGES else "words"
        return {**{k: v for k, v in super().options().items() if k in kept}, "language": self.language,
                "max_new_tokens": self.max_new_tokens, "overlap": f"f1-1..{MAX_ORDER}-{tokens}",
                **({"answer": self.answer} if self.answer != "line" else {})}

    def stats_options(self) -> dict[str, object]:
        return {**super().stats_options(), "max_new_tokens": self.max_new_tokens}

    def prompt_variables(self) -> dict[str, object]:
        return {"language": LANGUAGES[self.language]}

    def for_language(self, language: str) -> "LLMPostEdit":
        """The metric for the dataset's texts: ``language`` (``dataset.language``) is the one the
        prompt names and the overlap tokenises, unless ``metric.language`` names another one
        (then a ConfigError: the prompt would name the wrong language)."""
        if self.language not in ("en", language):
            raise ConfigError(f"metric.language={self.language!r} but the dataset's texts are {language!r}; "
                              "leave metric.language unset (it follows the dataset)")
        if language not in LANGUAGES:
            raise ConfigError(f"metric llm_pe on language {language!r}: not a language of the post-editing "
                              f"prompt; ISO 639-1 codes known: {sorted(LANGUAGES)}")
        metric = self if self.language == language else dataclasses.replace(self, language=language)
        return super(LLMPostEdit, metric).for_language(language)

    def _decoding(self, attempt: int):
        return dataclasses.replace(super()._decoding(attempt), max_new_tokens=self.max_new_tokens)

    def request_schema(self, job: PromptJob) -> dict | None:
        return None  # a free-text answer

    def parse_reply(self, job: PromptJob, text: str) -> ParsedAnswer:
        """The overlap of the output with the post-edit the answer gives, or the reason the
        answer is malformed."""
        post_edit, why = parse_sentence(text, first_line=self.answer == "first_line")
        if post_edit is None:
            return ParsedAnswer((None,), (why,))
        return ParsedAnswer((text_overlap(job.targets[0], post_edit, self.language),), ())
