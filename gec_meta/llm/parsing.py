"""Strict parsing of an LLM evaluator's answer.

The prompts (``conf/llm/prompts``) ask for one 1–5 score per target as JSON (Kobayashi et al.
2024a, Appendix A: "assign a score from a minimum of 1 point to a maximum of 5 points to each
target"; "the prompts output scores in JSON format") in a markdown code snippet::

    ```json
    {"target1_score": 4, "target2_score": 2}
    ```

An answer is accepted when its JSON text is either the whole answer or the content of exactly
one fenced code block (text around the block is allowed, as the prompt asks for a snippet), and
it validates against :func:`answer_schema`: an object with exactly the keys
``target1_score`` … ``targetN_score``, each an integer from 1 to 5 (JSON Schema semantics: 4.0
is an integer, "4" and true are not).  Nothing else is repaired or guessed: no comments, no
trailing commas, no numbers fished out of prose, no clipping of out-of-range scores.

A *partial* answer (some targets valid, others missing or invalid, or extra keys) keeps the
valid targets' scores and lists the errors; the metric decides whether to retry and whether to
keep the valid part (:class:`gec_meta.metrics.llm.LLMEvaluator`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

#: Score range of the prompts (Kobayashi et al. 2024a, Appendix A).
SCORE_MIN, SCORE_MAX = 1, 5

_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)


def score_key(i: int) -> str:
    """The answer key of target ``i`` (1-based), as the prompts' output format names it."""
    return f"target{i}_score"


def answer_schema(num_targets: int) -> dict:
    """The JSON Schema an answer for ``num_targets`` targets must satisfy."""
    keys = [score_key(i) for i in range(1, num_targets + 1)]
    return {
        "type": "object",
        "properties": {k: {"type": "integer", "minimum": SCORE_MIN, "maximum": SCORE_MAX} for k in keys},
        "required": keys,
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class ParsedAnswer:
    """The outcome of parsing one answer.

    Attributes:
        scores: shape (num_targets,): the score of each target, None where the answer has no
            valid score for it.
        errors: why the answer does not satisfy the schema (empty for a valid answer).
    """

    scores: tuple[int | None, ...]
    errors: tuple[str, ...]

    @property
    def valid(self) -> bool:
        """True when the answer satisfies the schema entirely."""
        return not self.errors

    @property
    def num_scored(self) -> int:
        return sum(s is not None for s in self.scores)


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError(f"duplicate key(s) {dup}")
    return dict(pairs)


def extract_json_text(answer: str) -> tuple[str | None, str | None]:
    """The JSON text of an answer and None, or None and the reason there is none."""
    stripped = answer.strip()
    if stripped.startswith("{"):
        return stripped, None
    blocks = _FENCE.findall(answer)
    if len(blocks) == 1:
        return blocks[0].strip(), None
    if len(blocks) > 1:
        return None, f"{len(blocks)} code blocks (expected one)"
    return None, "no JSON object: neither the whole answer nor one ```json code block"


def _as_score(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def parse_answer(answer: str, num_targets: int) -> ParsedAnswer:
    """Parse and validate one answer for ``num_targets`` targets (see the module docstring).

    Returns:
        the per-target scores (None where missing or invalid) and the schema errors.
    """
    if num_targets < 1:
        raise ValueError(f"num_targets must be >= 1, got {num_targets}")
    empty = (None,) * num_targets
    text, why = extract_json_text(answer)
    if text is None:
        return ParsedAnswer(empty, (why,))
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicates)
    except ValueError as exc:  # json.JSONDecodeError is a ValueError, as is a duplicate key
        return ParsedAnswer(empty, (f"invalid JSON: {exc}",))
    if not isinstance(obj, dict):
        return ParsedAnswer(empty, (f"the JSON value is a {type(obj).__name__}, not an object",))
    scores: list[int | None] = []
    errors: list[str] = []
    for i in range(1, num_targets + 1):
        key = score_key(i)
        if key not in obj:
            scores.append(None)
            errors.append(f"{key} missing")
            continue
        value = _as_score(obj[key])
        if value is None:
            scores.append(None)
            errors.append(f"{key}: {obj[key]!r} is not an integer")
        elif not SCORE_MIN <= value <= SCORE_MAX:
            scores.append(None)
            errors.append(f"{key}: {value} is outside {SCORE_MIN}-{SCORE_MAX}")
        else:
            scores.append(value)
    expected = {score_key(i) for i in range(1, num_targets + 1)}
    extra = sorted(k for k in obj if k not in expected)
    if extra:
        errors.append(f"unexpected key(s) {extra}")
    return ParsedAnswer(tuple(scores), tuple(errors))


def parse_sentence(answer: str, first_line: bool = False) -> tuple[str | None, str | None]:
    """The sentence of a free-text answer that must be one sentence (the post-editing prompt,
    :mod:`gec_meta.metrics.llm_pe`) and None, or None and why the answer is malformed.

    The answer is accepted as it is, less the whitespace around it, when it is one non-empty
    line; nothing is removed from it (no quotes, labels or code fences): an answer with
    several lines or none is malformed.  ``first_line=True`` (for small chat models that add an
    explanation after the sentence) takes the first non-empty line and ignores the rest.
    """
    lines = [line.strip() for line in answer.strip().splitlines()]
    if not lines or not lines[0]:
        return None, "empty answer"
    if len(lines) > 1 and not first_line:
        return None, f"{len(lines)} lines (expected the sentence on one line)"
    return lines[0], None
