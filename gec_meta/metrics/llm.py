"""LLM evaluators LLM-S and LLM-E (Kobayashi et al. 2024a, "Large Language Models Are
State-of-the-Art Evaluator for Grammatical Error Correction", §2.1, Appendices A–C).

An LLM reads a prompt with the source sentence in its essay context and up to five corrections
("targets") and answers a 1–5 score for each target as JSON.  LLM-S shows the targets as
sentences, LLM-E shows each with its edits marked (``[orig→corr]``, edits from ERRANT through
:class:`gec_meta.edits.extract.ErrantExtractor` and its cache).  Criterion variants append
one sentence to the prompt (LLM-E: ``difficulty``, ``impact``; LLM-S: ``grammaticality``,
``fluency``, ``meaning``); see ``conf/llm/prompts/README.md``.

**Targets per prompt.** Per source sentence, the distinct outputs of the evaluated systems are
scored, each once (systems with identical output share its score).  The paper shows at most five
targets per prompt ("N takes values from 1 to 5", App. A) and does not say how a sentence's
outputs (up to 15 distinct ones in SEEDA) were split into prompts.  We shuffle the distinct
outputs with a seeded generator (``partition_seed`` and the source text, so the split of one
sentence does not depend on the other sentences or the system order), then cut them into
ceil(m / 5) prompts of near-equal size (6 outputs → 3 + 3), so every distinct output gets a
score.  Scores of one sentence that come from different prompts are then compared as if they
came from one prompt — the price of scoring every output (the paper's pairwise LLM judgments,
App. B, may only have compared targets of one prompt).

**From scores to the harness.** Every (system, sentence) gets its output's score; the
aggregations then work as for any sentence metric: TrueSkill over the sentence-level pairwise
comparisons (the paper's LLM system scores, App. B: ``aggregation=trueskill``), the average,
Expected Wins, and sentence-level meta-evaluation (the paper's 5,347 pairs:
``meta_eval.sentence_variant=displayed``).  The ``default`` aggregation is the mean score.

**Missing answers.** An answer is parsed strictly (:mod:`gec_meta.llm.parsing`).  A malformed
answer is retried up to ``max_retries`` times; greedy decoding would repeat itself, so a retry
samples at ``retry_temperature`` with seed ``llm.seed + attempt``.  After the last try the
targets without a valid score are *missing*: statistic ``missing`` = 1, sentence score NaN.
Missing scores are never imputed: TrueSkill, Expected Wins and the sentence-level
meta-evaluation skip the pairs they are in, the average ignores them.  The counts are in
:attr:`LLMEvaluator.run_log` (and :func:`missing_count` reads them from the statistics).

**Small local models.** ``llm.structured=true`` constrains the answer to the JSON schema
(:mod:`gec_meta.llm.backends`); SmolLM2-135M needs it (asked freely it wrote no valid answer in
30 tries).  ``scoring: expected`` (not the paper's protocol) replaces each integer by
sum_v v * P(v) over the model's probabilities of 1–5 at that point (G-Eval's
probability-weighted score, Liu et al. 2023a), for models that give every target the same
integer; it reuses the same cached answers.

**Cost.** Every prompt/answer is cached by :mod:`gec_meta.llm.backends` (key: backend, model,
prompt hash, decoding), and the statistics are cached per system set like any metric's, so a
rerun makes no model call and an interrupted run resumes where it stopped.  The first answers
of all prompts are asked in one call of the backend (batched or concurrent), then each round of
retries (:meth:`LLMEvaluator.score_prompts`).  ``dry_run: true`` prints the prompts, the model
calls a run would make, their tokens and (given the backend's prices) their price, and stops
(:class:`DryRunFinished`); :meth:`LLMEvaluator.usage` is what a run cost.

Statistics: shape (S, N, 1, 2), last axis (score, missing); score is 0 where missing is 1.
"""

from __future__ import annotations

import dataclasses
import math
import uuid
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Sequence

import numpy as np
from gec_meta.cache import text_hash
from gec_meta.fields import integer, valid
from gec_meta.errors import ConfigError, GecMetaError, MissingDataError
from gec_meta.llm.backends import Request
from gec_meta.llm.parsing import SCORE_MIN, ParsedAnswer, answer_schema, parse_answer
from gec_meta.llm.prompts import Context, PromptTemplate, corpus_context, mark_edits
from gec_meta.metrics.base import ANY_LANGUAGE, Metric
from gec_meta.metrics.uses_edits import UsesEdits

#: At most five targets per prompt (Kobayashi et al. 2024a, App. A: "N takes values from 1 to 5").
MAX_TARGETS = 5
#: The most retries of a malformed answer (each one is a model call, on a paid endpoint too).
MAX_RETRIES = 10

#: ``context: conll14``: the CoNLL-2014 test source, whose lines SEEDA's sentences come from.
CONLL14_SOURCE = "conll14/conll14st-test.tok.src"


#: How a dry run counts tokens without the model's tokenizer (:func:`gec_meta.llm.backends.estimate_tokens`).
ESTIMATE_RULE = "estimate: ~4 characters a token, OpenAI's rule of thumb for English text, + 4 a message"


class MissingAnswersWarning(UserWarning):
    """Some targets got no valid score after the retries (their sentence scores are NaN)."""


class DryRunFinished(GecMetaError):
    """Raised by a dry run after printing its plan (no statistics, nothing cached)."""


@dataclass(frozen=True)
class PromptJob:
    """One prompt of a run.

    Attributes:
        sentence: index of the source sentence.
        targets: the distinct system outputs it scores, in prompt order.
        prompt: the rendered prompt.
    """

    sentence: int
    targets: tuple[str, ...]
    prompt: str


@dataclass
class LLMRunLog:
    """What the last :meth:`LLMEvaluator.statistics` call did (shared by bound copies).

    Attributes:
        prompts: prompts answered (cache or model).
        targets: targets in them.
        valid_first: prompts whose first answer was valid.
        valid_after_retry: prompts valid after one or more retries.
        partial: prompts left with some targets missing after the last try.
        failed: prompts left with no valid score at all.
        retries: answers requested beyond the first.
        missing_targets: targets without a score after the last try.
        no_context: source sentences whose prompts show no neighbours (not found in the corpus).
        target_scores: every target's final score (NaN = missing), in prompt order.
        answer_scores: ``scoring: expected`` only: the integer scores of the answers.
        examples: up to 10 (prompt index, answer, errors) of answers that failed validation.
    """

    prompts: int = 0
    targets: int = 0
    valid_first: int = 0
    valid_after_retry: int = 0
    partial: int = 0
    failed: int = 0
    retries: int = 0
    missing_targets: int = 0
    no_context: int = 0
    target_scores: list = field(default_factory=list)
    answer_scores: list = field(default_factory=list)
    examples: list = field(default_factory=list)

    def reset(self) -> None:
        for f in dataclasses.fields(self):
            setattr(self, f.name, f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default)


#: English names of ISO 639-1 codes, for the ``{{ language }}`` of the multilingual prompts.
LANGUAGE_NAMES = {"en": "English", "zh": "Chinese", "sv": "Swedish", "de": "German", "cs": "Czech", "ru": "Russian",
                  "uk": "Ukrainian", "es": "Spanish", "fr": "French", "it": "Italian", "ja": "Japanese",
                  "ko": "Korean", "ar": "Arabic", "et": "Estonian", "lv": "Latvian", "sl": "Slovenian",
                  "el": "Greek", "is": "Icelandic", "pt": "Portuguese", "nl": "Dutch"}

@dataclass(frozen=True)
class LLMEvaluator(Metric):
    """An LLM evaluator of Kobayashi et al. (2024a); see the module docstring.

    Fields:
        llm: the chat backend (:mod:`gec_meta.llm.backends`; config group ``llm``).
        criterion: None (the base prompt) or a criterion of this evaluator (:attr:`criteria`).
        template: prompt template name in ``conf/llm/prompts`` or a path.
        context: ``conll14`` (previous/following line of the CoNLL-2014 test source under the
            data root, the paper's and SEEDA's context), a path to another corpus file (one
            sentence a line), or ``none`` (the context block holds the source only).
        max_targets: targets per prompt (5, App. A).
        partition_seed: seed of the order/partition of a sentence's outputs.
        max_retries: extra answers requested for a malformed answer.
        retry_temperature: sampling temperature of retries.
        accept_partial: keep the valid scores of a partial answer after the last try (False:
            the whole prompt is missing).
        scoring: ``answer`` (the integer the answer gives, the paper) or ``expected`` (not in
            the paper: sum_v v * P(v) over the model's probabilities of the values 1-5 where it
            chose each score — G-Eval's probability-weighted score, Liu et al. 2023a — which
            breaks the ties of a small model that gives every target the same integer; needs a
            local backend with ``llm.structured=true``; the same model calls as ``answer``).
        dry_run: print the plan (prompts, model calls, tokens) and stop.
        dry_run_show: how many prompts a dry run prints in full (None = all).
        system_set: hash of the systems' outputs, set by :meth:`bind` (the partition depends on
            every system's output).
    """

    llm: object = None
    criterion: str | None = None
    template: str = "llm_s"
    context: str | None = "conll14"
    max_targets: int = field(default=MAX_TARGETS, metadata=valid(integer(1)))
    partition_seed: int = field(default=0, metadata=valid(integer(0)))
    max_retries: int = field(default=2, metadata=valid(integer(0, hi=MAX_RETRIES)))
    retry_temperature: float = 0.7
    accept_partial: bool = True
    scoring: str = "answer"
    dry_run: bool = False
    dry_run_show: int | None = field(default=None, metadata=valid(integer(0), optional=True))
    system_set: str = ""
    run_log: LLMRunLog = field(default_factory=LLMRunLog, repr=False, compare=False)
    _nonce: str = field(default_factory=lambda: uuid.uuid4().hex, repr=False, compare=False)

    name: ClassVar[str] = "llm"
    version: ClassVar[str] = "1"
    needs_references: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("score", "missing")
    criteria: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self):
        super().__post_init__()
        if self.llm is None:
            raise ConfigError(f"metric.llm is not set: choose a backend with llm=<name> (conf/llm), "
                              f"e.g. python run.py metric={self.name} llm=smollm2")
        if self.scoring not in ("answer", "expected"):
            raise ConfigError(f"metric.scoring must be 'answer' (the paper) or 'expected', got {self.scoring!r}")
        if self.retry_temperature < 0:
            raise ConfigError(f"metric.retry_temperature must be >= 0, got {self.retry_temperature}")
        self.prompt_template  # fail early on a bad template or criterion

    # ----------------------------------------------------------------- identity
    @property
    def prompt_template(self) -> PromptTemplate:
        cached = self.__dict__.get("_prompt_template")
        if cached is None:
            cached = PromptTemplate(self.template, self.criterion, self.criteria)
            object.__setattr__(self, "_prompt_template", cached)
        return cached

    languages: ClassVar[tuple[str, ...] | str] = ANY_LANGUAGE  # with a prompt that names the language

    def language_problem(self, language: str) -> str | None:
        """English only with the paper's prompts (they say the essays are by English learners)
        and its CoNLL-2014 context; another language needs the ``*_multilingual`` prompt, which
        names it, and ``context=none`` (or a corpus of that language)."""
        if language == "en":
            return None
        stem = Path(self.template).stem
        if stem in ("llm_s", "llm_e"):
            return (f"metric {self.name} on language {language!r}: its prompt {stem} describes essays by English "
                    f"learners; set metric.template={stem}_multilingual (it names the learners' language)")
        if self.context == "conll14":
            return (f"metric {self.name} on language {language!r}: metric.context=conll14 reads English essays; "
                    "set metric.context=none (or a path to a corpus of that language)")
        return super().language_problem(language)

    def options(self) -> dict[str, object]:
        return {
            **({"lang": self._language} if self._language != "en" else {}),
            "llm": self.llm.signature(), "decoding": self.llm.decoding.describe(),
            "criterion": self.criterion or "none",
            "template": f"{Path(self.template).stem}@{self.prompt_template.identity[:8]}",
            "context": self.context or "none", "max_targets": self.max_targets,
            "partition_seed": self.partition_seed, "max_retries": self.max_retries,
            "retry_temperature": self.retry_temperature, "accept_partial": self.accept_partial,
            **({"scoring": self.scoring} if self.scoring != "answer" else {}),
        }

    def stats_options(self) -> dict[str, object]:
        return {
            **self.options(), "backend": self.llm.identity, "system_prompt": self.llm.system_prompt or "",
            "max_new_tokens": self.llm.decoding.max_new_tokens, "seed": self.llm.decoding.seed,
            "context_file": self._context_identity(),
            "system_set": self.system_set or f"unbound-{self._nonce}",
            "dry_run": self.dry_run,
        }

    depends_on_system_set: ClassVar[bool] = True

    def bind(self, sources, hypotheses, references, systems=None) -> "LLMEvaluator":
        """A copy that carries the identity of this system set (the prompts group the outputs
        of all systems, so statistics are reused only for the same set)."""
        digest = text_hash(*sources, *(text_hash(*h) for h in sorted(map(tuple, hypotheses))))[:20]
        return dataclasses.replace(self, system_set=f"{len(hypotheses)}sys-{digest}")

    # ----------------------------------------------------------------- context
    def _context_path(self) -> Path | None:
        if not self.context or self.context == "none":
            return None
        if self.context == "conll14":
            from gec_meta.data.datasets import default_root

            path = Path(default_root()) / CONLL14_SOURCE
        else:
            path = Path(self.context).expanduser()
        if not path.is_file():
            raise MissingDataError(f"metric.context={self.context!r}: {path} not found (run `make data`, set "
                                   f"GEC_META_DATA, or metric.context=none for prompts without context)")
        return path

    def _context_identity(self) -> str:
        path = self._context_path()
        if path is None:
            return "none"
        return f"{path.name}@{text_hash(path.read_text(encoding='utf-8'))[:12]}"

    def contexts(self, sources: Sequence[str]) -> list[Context]:
        """The essay context of every source sentence, shape (N,)."""
        path = self._context_path()
        if path is None:
            return [Context()] * len(sources)
        from gec_meta.data.io import read_lines

        out, missing = corpus_context(sources, read_lines(path))
        self.run_log.no_context = missing
        if missing:
            warnings.warn(f"metric.context={self.context!r}: {missing} of {len(sources)} source sentences are "
                          f"not lines of {path}; their prompts show the source without neighbours", stacklevel=2)
        return out

    # ----------------------------------------------------------------- prompts
    def format_targets(self, source: str, targets: Sequence[str]) -> list[str]:
        """How the targets appear in the prompt (LLM-S: as they are)."""
        return list(targets)

    def prepare(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Batch work before rendering (LLM-E extracts every pair's edits at once)."""

    def partition(self, source: str, outputs: Sequence[str]) -> list[tuple[str, ...]]:
        """The prompts' target groups of one sentence: the distinct outputs, shuffled with a
        generator seeded by ``partition_seed`` and the source text, cut into
        ceil(m / max_targets) groups of near-equal size."""
        distinct = sorted(set(outputs))
        if not distinct:
            return []
        rng = np.random.default_rng([self.partition_seed, int(text_hash(source)[:15], 16)])
        order = rng.permutation(len(distinct))
        groups = np.array_split(order, math.ceil(len(distinct) / self.max_targets))
        return [tuple(distinct[i] for i in g) for g in groups]

    def plan(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]]) -> list[PromptJob]:
        """Every prompt of a run, in sentence order.

        Args:
            sources: shape (N,).
            hypotheses: shape (S, N).
        """
        contexts = self.contexts(sources)
        groups = [self.partition(src, [h[n] for h in hypotheses]) for n, src in enumerate(sources)]
        self.prepare([(sources[n], t) for n, gs in enumerate(groups) for g in gs for t in g])
        template, variables = self.prompt_template, self.prompt_variables()
        return [PromptJob(n, g, template.render(sources[n], contexts[n], self.format_targets(sources[n], g),
                                                variables))
                for n, gs in enumerate(groups) for g in gs]

    def prompt_variables(self) -> dict[str, object]:
        """Template variables of this metric besides the per-prompt ones: ``language``, the
        English name of the texts' language (:data:`LANGUAGE_NAMES`), which the ``*_multilingual``
        prompts name."""
        return {"language": LANGUAGE_NAMES.get(self._language, self._language)}

    # ----------------------------------------------------------------- answer format
    def request_schema(self, job: PromptJob) -> dict | None:
        """The JSON schema of ``job``'s answer (structured output and the cache key), or None
        for a free-text answer."""
        return answer_schema(len(job.targets))

    def parse_reply(self, job: PromptJob, text: str) -> ParsedAnswer:
        """``job``'s answer parsed into one score per target (None where invalid) and the errors
        that make it malformed (:mod:`gec_meta.llm.parsing`)."""
        return parse_answer(text, len(job.targets))

    # ----------------------------------------------------------------- answers
    def _decoding(self, attempt: int):
        base = self.llm.decoding
        if attempt == 0:
            return base
        return self.llm.with_decoding(temperature=self.retry_temperature, seed=base.seed + attempt)

    def score_prompt(self, job: PromptJob, index: int = 0) -> tuple[float, ...]:
        """The scores of one prompt's targets (NaN = missing), asking again for malformed answers."""
        return self.score_prompts([job], index)[0]

    def score_prompts(self, jobs: Sequence[PromptJob], start: int = 0) -> list[tuple[float, ...]]:
        """The scores of every prompt's targets (NaN = missing), in ``jobs`` order.

        The first answers of all prompts are asked together (the backend batches them or keeps
        many requests in flight), then the retries of the malformed ones together, attempt by
        attempt; every answer depends only on its own prompt and decoding, so the scores and
        :attr:`run_log` equal those of asking prompt after prompt.

        Args:
            start: the index of ``jobs[0]`` among the run's prompts (names answers in the log).
        """
        log = self.run_log
        schemas = [self.request_schema(job) for job in jobs]
        best: list = [None] * len(jobs)
        best_reply: list = [None] * len(jobs)
        last_attempt = [0] * len(jobs)
        rejected: list[list] = [[] for _ in jobs]
        active = list(range(len(jobs)))
        for attempt in range(self.max_retries + 1):
            if not active:
                break
            decoding = self._decoding(attempt)
            replies = self.llm.answer_many([Request(jobs[k].prompt, decoding, schemas[k]) for k in active],
                                           desc=f"{self.name} prompts" + (f", retry {attempt}" if attempt else ""))
            still = []
            for k, reply in zip(active, replies):
                log.retries += int(attempt > 0)
                parsed = self.parse_reply(jobs[k], reply.text)
                if not parsed.valid:
                    rejected[k].append((start + k, reply.text, parsed.errors))
                    still.append(k)
                if best[k] is None or parsed.num_scored > best[k].num_scored:
                    best[k], best_reply[k] = parsed, reply
                last_attempt[k] = attempt
            active = still
        return [self._final_scores(jobs[k], best[k], best_reply[k], last_attempt[k], rejected[k])
                for k in range(len(jobs))]

    def _final_scores(self, job: PromptJob, best, best_reply, attempt: int, rejected: list) -> tuple[float, ...]:
        """One prompt's scores from its best answer, counted in :attr:`run_log`."""
        log = self.run_log
        log.examples.extend(rejected[:max(0, 10 - len(log.examples))])
        log.prompts += 1
        log.targets += len(job.targets)
        if best.valid:
            if attempt == 0:
                log.valid_first += 1
            else:
                log.valid_after_retry += 1
            scores = best.scores
        elif best.num_scored and self.accept_partial:
            log.partial += 1
            scores = best.scores
        else:
            log.failed += 1
            scores = (None,) * len(job.targets)
        if self.scoring == "expected":
            log.answer_scores.extend(float("nan") if x is None else float(x) for x in scores)
            scores = self._expected(best_reply, scores)
        out = tuple(float("nan") if x is None else float(x) for x in scores)
        log.missing_targets += sum(math.isnan(x) for x in out)
        log.target_scores.extend(out)
        return out

    def _expected(self, reply, scores: Sequence[int | None]) -> list[float | None]:
        """``scoring: expected``: each scored target's score becomes sum_v v * P(v) under the
        model's probabilities of the allowed values where it chose the score (local structured
        output); a missing score stays missing."""
        if reply.probabilities is None:
            raise ConfigError("metric.scoring=expected needs the model's value probabilities: a local "
                              "transformers backend with llm.structured=true")
        out = []
        for i, score in enumerate(scores, 1):
            probs = reply.probabilities.get(f"target{i}_score")
            out.append(None if score is None or probs is None else
                       sum((SCORE_MIN + k) * p for k, p in enumerate(probs)))
        return out

    def statistics(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]], references=()) -> np.ndarray:
        """Scores of every (system, sentence).

        Args:
            sources: shape (N,).
            hypotheses: shape (S, N).
            references: ignored.

        Returns:
            shape (S, N, 1, 2): (score, missing).

        Raises:
            DryRunFinished: with ``dry_run: true``, after printing the plan.
        """
        self.run_log.reset()
        jobs = self.plan(sources, hypotheses)
        if self.dry_run:
            print(self.describe_plan(jobs, show=self.dry_run_show))
            raise DryRunFinished(f"dry run of {self.name}: {len(jobs)} prompts; nothing was scored")
        scores: dict[tuple[int, str], float] = {}
        try:
            for job, values in zip(jobs, self.score_prompts(jobs)):
                for target, value in zip(job.targets, values):
                    scores[(job.sentence, target)] = value
        finally:
            self.llm.flush()  # the answers into the cache (the journal kept them meanwhile)
        log = self.run_log
        if log.missing_targets:
            warnings.warn(f"{self.name}: {log.missing_targets} of {log.targets} targets have no valid score after "
                          f"{self.max_retries} retries ({log.failed} prompts without any, {log.partial} partial); "
                          f"they are NaN and skipped by the aggregations", MissingAnswersWarning, stacklevel=2)
        N, S = len(sources), len(hypotheses)
        out = np.zeros((S, N, 1, 2), dtype=np.float64)
        for s in range(S):
            for n in range(N):
                value = scores[(n, hypotheses[s][n])]
                if math.isnan(value):
                    out[s, n, 0, 1] = 1.0
                else:
                    out[s, n, 0, 0] = value
        return out

    def reset_usage(self) -> None:
        self.run_log.reset()
        self.llm.stats.reset()

    def usage(self) -> dict:
        """What the statistics cost since :meth:`reset_usage`: prompts, answers made by the model
        and served from the cache, requests sent (with network/HTTP retries), retries of
        malformed answers, tokens, model and wall time, the price (given ``llm.price_per_1k_*``)
        and how requests were scheduled (``timing.json`` and ``results.md`` of a run)."""
        s, log, backend = self.llm.stats, self.run_log, self.llm
        out = {"backend": backend.signature(), "prompts": log.prompts, "answers_made": s.calls,
               "cache_hits": s.cache_hits, "requests": s.requests, "request_retries": s.retries,
               "answer_retries": log.retries, "prompt_tokens": s.prompt_tokens,
               "completion_tokens": s.completion_tokens, "model_s": round(s.seconds, 3),
               "wall_s": round(s.wall_seconds, 3), **backend.scheduling()}
        if backend.pricing.known:
            out["price"] = round(backend.pricing.cost(s.prompt_tokens, s.completion_tokens), 6)
        return out

    def describe_plan(self, jobs: Sequence[PromptJob], show: int | None = None) -> str:
        """The dry-run report: the prompts (the first ``show``; None = all), the model calls a
        run would make (answers not cached yet) and their estimated token count."""
        backend = self.llm
        todo = [j for j in jobs if not backend.is_cached(j.prompt, self._decoding(0), self.request_schema(j))]
        todo_ids = {id(j) for j in todo}
        lines = []
        for k, job in enumerate(jobs if show is None else jobs[:show]):
            cached = "to call" if id(job) in todo_ids else "cached"
            lines.append(f"----- prompt {k + 1}/{len(jobs)} (sentence {job.sentence}, "
                         f"{len(job.targets)} targets, {cached}) -----")
            lines.append(job.prompt)
        tokens, exact = 0, True
        for job in todo:
            n, ok = backend.count_tokens(backend.messages(job.prompt))
            tokens += n
            exact &= ok
        max_new = self._decoding(0).max_new_tokens
        if getattr(backend, "structured", False) and backend.kind == "transformers" and \
                all(self.request_schema(j) is not None for j in todo):
            completion = 8 * sum(len(j.targets) for j in todo)
            answer_tokens = (f"about {completion} (structured output: the JSON is written for the model, ~8 tokens "
                             f"a target, of which it chooses one)")
        else:
            completion = len(todo) * max_new
            answer_tokens = f"at most {completion} ({max_new} per call)"
        retries = len(todo) * self.max_retries
        if backend.pricing.known:
            first = backend.pricing.cost(tokens, completion)
            price = (f"price: at most {first:.4f} (prompt tokens x {backend.pricing.price_per_1k_input_tokens} + "
                     f"answer tokens x {backend.pricing.price_per_1k_output_tokens} per 1,000); at most "
                     f"{first * (1 + self.max_retries):.4f} if every answer were retried {self.max_retries} times")
        else:
            price = (f"price: set {backend.config_key}.price_per_1k_input_tokens and "
                     f"{backend.config_key}.price_per_1k_output_tokens for an estimate")
        lines.append(
            f"===== dry run: {self.signature()}\n"
            f"{len(jobs)} prompts ({sum(len(j.targets) for j in jobs)} targets) for {len({j.sentence for j in jobs})} "
            f"sentences; {len(jobs) - len(todo)} answered in the cache; {len(todo)} model calls to make "
            f"(up to {len(todo) + retries} with {self.max_retries} retries each)\n"
            f"prompt tokens of those calls: {tokens} ({'exact, model tokenizer' if exact else ESTIMATE_RULE}); "
            f"answer tokens: {answer_tokens}\n{price}")
        return "\n".join(lines)

    # ----------------------------------------------------------------- stage 2
    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        """The score, NaN where the answer is missing."""
        return np.where(stats[..., 1] > 0, np.nan, stats[..., 0])

    def diagnostics(self, stats: np.ndarray, systems: Sequence[str]) -> dict[str, object]:
        """Missing answers: (system, sentence) cells without a score, in total and per system
        (those systems' scores are means over fewer sentences)."""
        missing = np.asarray(stats)[:, :, 0, 1] > 0
        return {"missing": {"cells": int(missing.sum()), "of": int(missing.size),
                            "per_system": {s: int(k) for s, k in zip(systems, missing.sum(axis=1)) if k}}}

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        """Mean of the scores that are there, shape (S,)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a system without any score: NaN
            return np.nanmean(self.sentence_scores(stats), axis=1)


@dataclass(frozen=True)
class LLMSentence(LLMEvaluator):
    """LLM-S: sentence-based evaluation (targets shown as sentences)."""

    template: str = "llm_s"

    name: ClassVar[str] = "llm_s"
    criteria: ClassVar[tuple[str, ...]] = ("grammaticality", "fluency", "meaning")


@dataclass(frozen=True)
class LLMEdit(UsesEdits, LLMEvaluator):
    """LLM-E: edit-based evaluation (targets shown with their ERRANT edits marked)."""

    template: str = "llm_e"

    name: ClassVar[str] = "llm_e"
    criteria: ClassVar[tuple[str, ...]] = ("difficulty", "impact")

    def prepare(self, pairs: Sequence[tuple[str, str]]) -> None:
        from gec_meta.edits.languages import edit_extractor

        edits = edit_extractor(self._language).extract(list(pairs))
        if self._language == "zh":  # ChERRANT: the first alignment's edits, a partition to mark
            from gec_meta.edits.cherrant import first_alignment

            edits = [first_alignment(e) for e in edits]
        object.__setattr__(self, "_edits", dict(zip(pairs, edits)))

    def format_targets(self, source: str, targets: Sequence[str]) -> list[str]:
        edits = self.__dict__.get("_edits") or {}
        missing = [(source, t) for t in targets if (source, t) not in edits]
        if missing:
            self.prepare(missing)
            edits = {**edits, **self.__dict__["_edits"]}
            object.__setattr__(self, "_edits", edits)
        return [mark_edits(source, edits[(source, t)]) for t in targets]


def missing_count(stats: np.ndarray) -> int:
    """(system, sentence) cells without a score in LLM statistics of shape (S, N, 1, 2)."""
    return int(np.asarray(stats)[..., 1].sum())


def target_scores(stats: np.ndarray, hypotheses: Sequence[Sequence[str]]) -> np.ndarray:
    """The score of every distinct (sentence, output) pair — what the LLM was asked — from LLM
    statistics (for score distributions, App. C, Figure 4).

    Args:
        stats: shape (S, N, 1, 2).
        hypotheses: shape (S, N).

    Returns:
        shape (number of distinct pairs,), NaN where missing.
    """
    seen: dict[tuple[int, str], float] = {}
    for s, hyp in enumerate(hypotheses):
        for n, h in enumerate(hyp):
            if (n, h) not in seen:
                seen[(n, h)] = np.nan if stats[s, n, 0, 1] > 0 else float(stats[s, n, 0, 0])
    return np.array(list(seen.values()), dtype=np.float64)
