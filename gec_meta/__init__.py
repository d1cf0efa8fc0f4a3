"""gec-meta: meta-evaluation of grammatical error correction metrics.

Quick start::

    from gec_meta import load_dataset, load_metric, meta_evaluate
    result = meta_evaluate(load_dataset("seeda", setting="base"), load_metric("errant"),
                           aggregation="trueskill")
    result["system"]["TS_edit"]   # {'pearson', 'spearman', 'pairwise_accuracy', 'spa'}  (also result.system["TS_edit"])
    result["sentence"]["edit"]    # {'accuracy', 'kendall', 'pairs', 'acc_eq', 'tau_eq', 'epsilon', 'groups'}
"""

__version__ = "0.1.0"


def __getattr__(name):  # lazy: importing gec_meta loads nothing heavy
    if name in ("load_metric", "load_dataset", "load_refset", "load_aggregation", "meta_evaluate",
                "Task", "Result", "Scored", "attribute"):
        from gec_meta import api

        return getattr(api, name)
    raise AttributeError(name)
