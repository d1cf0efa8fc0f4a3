"""The one registry of metrics: config name -> metric class (and the options the name implies).

Every option of ``conf/metric`` names a metric here; the sentence-level names of the edit
metrics (``sentm2``, ``senterrant``, ``sent_pt_m2``, ``sent_pt_errant``, ``sent_uot_errant``)
are their class at ``level="sentence"``; ``cleme_dependent_corpus`` / ``cleme_independent_corpus``
are CLEME at CLEME's own corpus-level defaults (``cleme_dependent`` / ``cleme_independent``:
SentCLEME with the UOT-ERRANT paper's weights); ``cleme2_*`` are CLEME2.0 (SentCLEME2.0, and
CLEME2.0 at ``_corpus``, each with its official weights).  Classes are imported when first asked for, so
listing the names never imports torch or spaCy.

    metric_class("sentm2")                  # -> gec_meta.metrics.edit.m2.M2
    create_metric("sentm2", beta=1.0)       # -> M2(beta=1.0, level="sentence")
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping

from gec_meta.errors import ConfigError

#: CLEME's own corpus-level setting (Ye et al. 2023; code v1.0, commit 5fc7617,
#: ``cleme/constants.py`` DEFAULT_CONFIG_CORPUS_DEPENDENT = _INDEPENDENT, the defaults of its
#: ``scripts/evaluate.py``): accumulated counts, TP/FP/FN weights alpha 2 clipped to
#: [0.75, 1.25] (FP reversed, as every CLEME FP weight).  The plain ``cleme_*`` names keep the
#: UOT-ERRANT paper's SentCLEME weights (Goto et al. 2025, §4.1).
_CLEME_CORPUS: Mapping[str, Any] = {
    "level": "corpus",
    "tp_alpha": 2.0, "tp_min": 0.75, "tp_max": 1.25,
    "fp_alpha": 2.0, "fp_min": 0.75, "fp_max": 1.25,
    "fn_alpha": 2.0, "fn_min": 0.75, "fn_max": 1.25,
}

#: name -> (module:Class, options the name implies)
_REGISTRY: dict[str, tuple[str, Mapping[str, Any]]] = {
    # edit metrics (gec_meta.metrics.edit)
    "m2": ("gec_meta.metrics.edit.m2:M2", {}),
    "sentm2": ("gec_meta.metrics.edit.m2:M2", {"level": "sentence"}),
    "errant": ("gec_meta.metrics.edit.errant:Errant", {}),
    "senterrant": ("gec_meta.metrics.edit.errant:Errant", {"level": "sentence"}),
    "pt_m2": ("gec_meta.metrics.edit.pt:PTM2", {}),
    "sent_pt_m2": ("gec_meta.metrics.edit.pt:PTM2", {"level": "sentence"}),
    "pt_errant": ("gec_meta.metrics.edit.pt:PTErrant", {}),
    "sent_pt_errant": ("gec_meta.metrics.edit.pt:PTErrant", {"level": "sentence"}),
    "uot_errant": ("gec_meta.metrics.edit.uot:UOTErrant", {}),
    "sent_uot_errant": ("gec_meta.metrics.edit.uot:UOTErrant", {"level": "sentence"}),
    "gotoscorer": ("gec_meta.metrics.edit.gotoscorer:GoToScorer", {}),
    "gotoscorer_unweighted": ("gec_meta.metrics.edit.gotoscorer:GoToScorerUnweighted", {}),
    "cleme_dependent": ("gec_meta.metrics.edit.cleme:CLEME", {"mode": "dependent"}),
    "cleme_independent": ("gec_meta.metrics.edit.cleme:CLEME", {"mode": "independent"}),
    "cleme_dependent_corpus": ("gec_meta.metrics.edit.cleme:CLEME", {"mode": "dependent", **_CLEME_CORPUS}),
    "cleme_independent_corpus": ("gec_meta.metrics.edit.cleme:CLEME", {"mode": "independent", **_CLEME_CORPUS}),
    "cleme2_dependent": ("gec_meta.metrics.edit.cleme2:CLEME2", {"mode": "dependent"}),
    "cleme2_independent": ("gec_meta.metrics.edit.cleme2:CLEME2", {"mode": "independent"}),
    "cleme2_dependent_corpus": ("gec_meta.metrics.edit.cleme2:CLEME2", {"mode": "dependent", "level": "corpus"}),
    "cleme2_independent_corpus": ("gec_meta.metrics.edit.cleme2:CLEME2", {"mode": "independent", "level": "corpus"}),
    # n-gram metrics
    "gleu": ("gec_meta.metrics.ngram.gleu:GLEU", {}),
    "gleu_corrected": ("gec_meta.metrics.ngram.gleu:GLEU", {"variant": "corrected"}),
    "green": ("gec_meta.metrics.ngram.green:GREEN", {}),
    # neural metrics
    "bertscore": ("gec_meta.metrics.neural.bertscore:BERTScore", {}),
    "bartscore": ("gec_meta.metrics.neural.bartscore:BARTScore", {}),
    "scribendi": ("gec_meta.metrics.neural.scribendi:Scribendi", {}),
    "some": ("gec_meta.metrics.neural.some:SOME", {}),
    "impara": ("gec_meta.metrics.neural.impara:IMPARA", {}),
    # LLM evaluators, scores from files, ensembles of metrics, toy metric
    "llm_s": ("gec_meta.metrics.llm:LLMSentence", {}),
    "llm_e": ("gec_meta.metrics.llm:LLMEdit", {}),
    "llm_pe": ("gec_meta.metrics.llm_pe:LLMPostEdit", {}),
    "from_files": ("gec_meta.metrics.from_files:FromFiles", {}),
    "multigec_official": ("gec_meta.metrics.official:MultigecOfficial", {}),
    "ensemble": ("gec_meta.metrics.ensemble:Ensemble", {}),
    "length": ("gec_meta.metrics.length:Length", {}),
}


def metric_names() -> list[str]:
    """Every registered metric name (= the options of the ``metric`` config group)."""
    return sorted(_REGISTRY)


def _entry(name: str) -> tuple[str, Mapping[str, Any]]:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown metric {name!r}; available: {metric_names()}") from None


def metric_target(name: str) -> str:
    """The dotted path of the class of metric ``name`` (a Hydra ``_target_``)."""
    return _entry(name)[0].replace(":", ".")


def implied_options(name: str) -> dict[str, Any]:
    """The options that metric ``name`` sets on its class (e.g. ``sentm2``: level=sentence)."""
    return dict(_entry(name)[1])


def metric_class(name: str) -> type:
    """The class of metric ``name``, imported on demand."""
    module, cls = _entry(name)[0].split(":")
    return getattr(importlib.import_module(module), cls)


def create_metric(name: str, **options: Any):
    """Metric ``name`` with ``options`` (over the ones its name implies)."""
    return metric_class(name)(**{**implied_options(name), **options})
