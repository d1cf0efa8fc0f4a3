"""Which language a model-based metric can honestly score: the guard behind
:meth:`gec_meta.metrics.base.Metric.for_language` for metrics that read an encoder or an LM.

A model trained on English text only (MiniLM, bert-base-uncased, RoBERTa, ELECTRA, BART, GPT-2,
DistilBERT, DeBERTa) scores any other language as noise, so a non-English dataset needs the user
to name a model that covers it (``encoder.model=bert-base-chinese``; LaBSE, XLM-R and mBERT are
multilingual).  The decision is by the model's name: :data:`ENGLISH_ONLY` patterns, unless a
:data:`MULTILINGUAL` marker (or the language's own name) is in it.
"""

from __future__ import annotations

import re

#: Name fragments (lower case) of English-only model families.
ENGLISH_ONLY = ("minilm", "bert-base-uncased", "bert-large-uncased", "bert-base-cased", "bert-large-cased",
                "distilbert", "roberta", "electra", "bart", "gpt2", "deberta", "t5-", "opt-")
#: Name fragments that mark a model trained on other languages too.
MULTILINGUAL = ("multilingual", "xlm", "mbert", "mdeberta", "labse", "mt5", "mbart", "chinese", "zh",
                "swedish", "sv", "bert-base-multilingual", "paraphrase-multilingual", "e5", "bge-m3")
#: What to suggest per language.
SUGGESTED = {"zh": "bert-base-chinese", "sv": "KB/bert-base-swedish-cased"}


def english_only(model: str) -> bool:
    """True when ``model`` (a hub id or a path) names an English-only model family."""
    name = str(model).lower()
    tokens = set(re.split(r"[-_/.@:]", name))
    if any((m in tokens) if len(m) <= 3 else (m in name) for m in MULTILINGUAL):
        return False
    return any(m in name for m in ENGLISH_ONLY)


def model_names(obj) -> list[tuple[str, str]]:
    """(config key, model name) of every model a metric, scorer or encoder reads."""
    out: list[tuple[str, str]] = []
    name = getattr(obj, "model_name", None)  # an Encoder
    if isinstance(name, str):
        return [("encoder.model", name)]
    source = getattr(obj, "source", None)  # a BARTScore scorer
    if source is not None and hasattr(source, "identity"):
        return [("scorer.model", str(getattr(source, "name", None) or source.identity))]
    for attr in ("encoder", "scorer"):
        inner = getattr(obj, attr, None)
        if inner is not None and inner is not obj:
            out += model_names(inner)
    return out


def model_language_problem(metric, language: str) -> str | None:
    """None when every model of ``metric`` may score ``language``, else the one-line fix."""
    if language == "en":
        return None
    for key, model in model_names(metric):
        if english_only(model):
            suggestion = SUGGESTED.get(language, f"a model trained on {language}")
            return (f"metric {metric.name} on language {language!r}: {key}={model} is an English-only model; "
                    f"set {key}={suggestion} (or another model that covers {language})")
    return None
