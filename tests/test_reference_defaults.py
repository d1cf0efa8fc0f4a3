"""Per-dataset reference defaults (issue 19 item 5): ``refset.missing_annotator`` unset follows
the dataset's published protocol -- GJG15/CoNLL-2014: m2scorer's semantics (``annotator0``),
SEEDA: gec-metrics' references (``source``) -- and an explicit value still overrides it.

The expected M2 scores are the official CoNLL-2014 ones, not our scorer's output: Ng et al.
(2014), "The CoNLL-2014 Shared Task on Grammatical Error Correction", Table 4 (F0.5 in percent,
m2scorer 3.2 on the official 2-annotator test M2), repeated in nusnlp/gecmetrics
``scores/system_scores_metrics/m2score.txt`` (shipped as
``data/gjg15/nusnlp-gecmetrics/scores/system_scores_metrics/m2score.txt``).
"""

from __future__ import annotations

import logging

import pytest

from gec_meta.data.datasets import load_gjg15, load_seeda
from gec_meta.data.refsets import DEFAULT_MISSING_ANNOTATOR, load_refset, missing_annotator_choice
from gec_meta.errors import ConfigError

# Ng et al. (2014) Table 4, F0.5 (%) of the 12 CoNLL-2014 teams (official m2scorer).
CONLL14_TABLE4_F05 = {
    "AMU": 35.01, "CAMB": 37.33, "CUUI": 36.79, "IITB": 5.90, "IPN": 7.09, "NTHU": 29.92,
    "PKU": 25.32, "POST": 30.88, "RAC": 26.68, "SJTU": 15.19, "UFC": 7.84, "UMC": 25.37,
}


def test_choice_follows_the_dataset_and_keeps_the_override():
    assert DEFAULT_MISSING_ANNOTATOR == {"gjg15": "annotator0", "seeda": "source"}
    assert missing_annotator_choice("gjg15", None) == ("annotator0", "gjg15 default")
    assert missing_annotator_choice("seeda", None) == ("source", "seeda default")
    assert missing_annotator_choice("gjg15", "source") == (
        "source", "refset.missing_annotator override; gjg15 default: annotator0")
    assert missing_annotator_choice("seeda", "annotator0")[0] == "annotator0"
    with pytest.raises(ConfigError, match="refset.missing_annotator"):
        missing_annotator_choice("gjg15", "first")


@pytest.mark.slow
@pytest.mark.ci
def test_gjg15_m2_with_the_default_refset_gives_the_official_conll14_scores(data_root, gjg15_m2_official):
    ds = load_gjg15(data_root)
    refs = load_refset("official", ds, data_root)  # missing_annotator unset: GJG15's protocol
    assert refs.options == {"missing_annotator": "annotator0"}
    assert refs.provenance == "missing_annotator=annotator0 (gjg15 default)"
    res = gjg15_m2_official  # Task(ds, M2(), Default(), refs, ...).run(), once per session (conftest.py)
    assert "|refs:official(missing_annotator=annotator0,nrefs=2)|" in res.signature
    # SJTU: 0.1519 (the example; with the old default `source` it was 0.1565).
    assert round(res.system_scores["SJTU"], 4) == 0.1519
    assert {s: round(100 * res.system_scores[s], 2) for s in CONLL14_TABLE4_F05} == CONLL14_TABLE4_F05
    # The same values as nusnlp/gecmetrics' m2score.txt (4 decimals), and INPUT 0.
    rows = (data_root / "gjg15/nusnlp-gecmetrics/scores/system_scores_metrics/m2score.txt").read_text()
    official = {c[3]: float(c[4]) for c in (line.split("\t") for line in rows.splitlines())}
    assert {s: round(v, 4) for s, v in res.system_scores.items()} == official
    # P / R of the CoNLL-2014 overview (Ng et al. 2014, Table 4), in percent
    p, r, _ = res.scored.metric.corpus_prf(res.scored.stats)
    systems = list(res.system_scores)
    amu, camb = systems.index("AMU"), systems.index("CAMB")
    assert round(100 * p[amu], 2) == 41.62 and round(100 * r[amu], 2) == 21.40
    assert round(100 * p[camb], 2) == 39.71 and round(100 * r[camb], 2) == 30.10


def test_seeda_default_stays_source_and_overrides_are_named(data_root):
    ds = load_seeda(data_root, setting="base")
    seeda = load_refset("official", ds, data_root)
    assert seeda.options == {"missing_annotator": "source"}
    assert seeda.provenance == "missing_annotator=source (seeda default)"
    assert seeda.texts == load_refset("official", ds, data_root, "source").texts
    over = load_refset("official", ds, data_root, "annotator0")
    assert over.signature() == "official(missing_annotator=annotator0,nrefs=2)"
    assert over.provenance == "missing_annotator=annotator0 (refset.missing_annotator override; seeda default: source)"
    # On GJG15 the override gives back the old default; the 88 sentences without an annotator-1
    # line differ (annotator 1 = source there vs = annotator 0).
    gjg = load_gjg15(data_root)
    default, source = load_refset("official", gjg, data_root), load_refset("official", gjg, data_root, "source")
    assert source.signature() == "official(missing_annotator=source,nrefs=2)"
    assert default.texts[0] == source.texts[0]
    differ = sum(a != b for a, b in zip(default.texts[1], source.texts[1]))
    assert 0 < differ <= 88


@pytest.mark.slow
def test_run_py_default_config_and_log_line(data_root, tmp_path, caplog):
    """``run.py dataset=gjg15 metric=m2``: the config leaves missing_annotator unset, the job
    uses GJG15's annotator0, says so in the log, and the override still works."""
    from hydra import compose, initialize_config_module
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf, open_dict

    from gec_meta.cli.run import run_job
    from gec_meta.config import CONFIG_MODULE, register_configs

    register_configs()
    cases = (
        ([], "annotator0", "missing_annotator=annotator0 (gjg15 default)", 0.1519),
        (["refset.missing_annotator=source"], "source",
         "missing_annotator=source (refset.missing_annotator override; gjg15 default: annotator0)", None),
    )
    for k, (overrides, value, why, sjtu) in enumerate(cases):
        with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3", job_name="refdef"):
            cfg = compose("config", return_hydra_config=True, overrides=[
                "dataset=gjg15", "metric=m2", f"data_dir={data_root}", "cache=false",
                "meta_eval.window=null", "meta_eval.sentence_level=false", *overrides])
        assert cfg.refset.missing_annotator == (value if overrides else None)
        out = tmp_path / str(k)
        with open_dict(cfg):
            cfg.hydra.runtime.output_dir = str(out)
        HydraConfig.instance().set_config(cfg)
        out.mkdir()
        caplog.clear()
        try:
            with caplog.at_level(logging.INFO, logger="gec_meta"):
                payload = run_job(OmegaConf.masked_copy(cfg, [key for key in cfg if key != "hydra"]))
        finally:
            HydraConfig.instance().cfg = None  # no Hydra job config leaks into other tests
        assert f"refs: official {why}" in caplog.messages
        assert f"|refs:official(missing_annotator={value},nrefs=2)|" in payload["signature"]
        if sjtu is not None:
            assert round(payload["system_scores"]["SJTU"], 4) == sjtu
