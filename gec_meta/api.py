"""The Python API: the same objects ``run.py`` builds, without Hydra's command line.

    from gec_meta import load_metric, load_dataset, load_refset, meta_evaluate
    ds = load_dataset("seeda", setting="base")
    metric = load_metric("errant")                       # conf/metric/errant.yaml
    result = meta_evaluate(ds, metric, aggregation="trueskill", refset="official")
    result.system["TS_edit"]                             # also result["system"]["TS_edit"]
    result.to_json()                                     # the dict of a run's results.json

:func:`meta_evaluate` builds a :class:`gec_meta.meta.task.Task` and runs it; build a ``Task``
yourself for stages 1 + 2 only (``Task(...).score()``: statistics and system scores).

Edit-level attribution (:mod:`gec_meta.analysis.attribution`)::

    from gec_meta.api import attribute
    att = attribute("This are a sentences .", "This is a sentence .", ["This is a sentence ."],
                    metric="sentm2", method="shapley")
    att.to_json()        # {"src_score", "sent_score", "edits": [[start, end, correction, type]], "attribution"}
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from gec_meta.meta.aggregation import Aggregation, load_aggregation
from gec_meta.data.datasets import Dataset, default_root, load_dataset
from gec_meta.data.refsets import References, load_refset
from gec_meta.config import compose_group
from gec_meta.errors import ConfigError
from gec_meta.meta.task import Result, Scored, Task
from gec_meta.metrics.base import Metric


def metric_config(name: str, overrides: Sequence[str] = (), flag: str = ""):
    """The composed config node of metric ``name`` (``conf/metric/<name>.yaml``)."""
    return compose_group("metric", name, overrides, flag)


def load_metric(name: str, *overrides: str, option_flag: str = "", override_flag: str = "",
                **options) -> Metric:
    """Build metric ``name`` from its config.

    Args:
        name: a file of ``conf/metric`` (``errant``, ``m2``, ``pt_m2``, ...).
        overrides: Hydra overrides of other groups, e.g. ``"encoder=minilm"``.
        options: metric fields, e.g. ``beta=1.0``.
        option_flag, override_flag: how a command line spells options and overrides
            (``"-m "``, ``"-c "``), for error messages.

    Raises:
        ConfigError: an unknown metric (a name, not a path), an unknown option of a group the
            overrides name, an option that is not a field of the metric (naming its fields), or
            a config whose ``_target_`` is not a :class:`Metric`.
    """
    from gec_meta.config import instantiate_as, searchpath_of

    cfg = metric_config(name, overrides, override_flag)
    unknown = [k for k in options if k not in cfg]
    if unknown:
        fields = ", ".join(sorted(k for k in cfg if not str(k).startswith("_")))
        raise ConfigError(f"{option_flag}{unknown[0]}=...: metric {name} has no field {unknown[0]!r}; fields: {fields}")
    with searchpath_of(overrides):  # an ensemble's members are looked up where it was
        return instantiate_as(cfg, Metric, "metric", **options)


def meta_evaluate(
    dataset: Dataset,
    metric: Metric,
    aggregation: str | Aggregation = "default",
    refset: str | References = "official",
    root: str | Path | None = None,
    **options,
) -> Result:
    """Meta-evaluate ``metric`` on ``dataset``: ``Task(...).run()`` (:class:`gec_meta.meta.task.Task`).

    Args:
        aggregation: a name (``default``, ``average``, ``trueskill``, ``expected_wins``) or object.
        refset: a reference-set name (built for the dataset) or a :class:`References`.
        root: the data directory of ``refset`` and of what the metric reads there (ChERRANT's
            Cilin and confusion set; :func:`gec_meta.data.fetch.data_directory`); default
            ``$GEC_META_DATA`` or ``./data``.
        options: :class:`gec_meta.meta.task.Task` fields (``window``, ``sentence_variant``,
            ``bootstrap_samples``, ...).
    """
    from gec_meta.data.fetch import data_directory

    agg = load_aggregation(aggregation) if isinstance(aggregation, str) else aggregation
    refs = None
    if metric.needs_references:
        refs = load_refset(refset, dataset, root or default_root()) if isinstance(refset, str) else refset
    with data_directory(root):  # what the metric reads from the data directory (ChERRANT's resources) too
        return Task(dataset, metric, agg, refs, **options).run()


def attribute(
    sources: str | Sequence[str],
    hypotheses: str | Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]] | References | None = None,
    metric: str | Metric = "sentm2",
    method: str = "shapley",
    **options,
):
    """Edit-level attribution of sentence scores (:mod:`gec_meta.analysis.attribution`).

    Args:
        sources, hypotheses: one tokenised sentence each (str), or shape (N,).
        references: for one sentence, its references, shape (R,); for N sentences, shape (R, N)
            or a :class:`References`; None for reference-free metrics.  Text references give
            M2-based metrics ERRANT-extracted gold edits.
        metric: a ``conf/metric`` name or a :class:`Metric`.
        method: ``add``, ``sub`` or ``shapley``.
        options: :func:`gec_meta.analysis.attribution.attribute_edits` keywords
            (``max_exact_edits``, ``num_samples``, ``seed``, ``normalize``, ``use_cache``).

    Returns:
        One :class:`~gec_meta.analysis.attribution.Attribution` for one sentence, else a list of N.
    """
    from gec_meta.analysis.attribution import attribute as attribute_sentences

    single = isinstance(sources, str)
    if single != isinstance(hypotheses, str):
        raise ValueError("give one source and one hypothesis, or sequences of both")
    srcs = [sources] if single else list(sources)
    hyps = [hypotheses] if single else list(hypotheses)
    m = load_metric(metric) if isinstance(metric, str) else metric
    refs = None
    if m.needs_references:
        if references is None:
            raise ConfigError(f"metric {m.name} needs references")
        if not isinstance(references, References):
            texts = [[r] for r in references] if single else [list(r) for r in references]
            references = References("given", tuple(f"ref{k}" for k in range(len(texts))),
                                    tuple(tuple(t) for t in texts), None, {"gold_edits": "errant"},
                                    sources=tuple(srcs))
        refs = references.for_metric(getattr(m, "reference_kind", "text"))
    out = attribute_sentences(m, srcs, hyps, refs, method, **options)
    return out[0] if single else out


__all__ = ["attribute", "load_metric", "load_dataset", "load_refset", "load_aggregation", "meta_evaluate", "metric_config",
           "Task", "Result", "Scored"]
