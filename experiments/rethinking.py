""""Rethinking" (Goto et al. 2025): Table 1 for every metric available here, and Figure 2.

    .venv/bin/python experiments/rethinking.py [--out DIR]     # default experiments/results
        [--significance williams|permutation|bootstrap] [--resamples 1000] [--seed 0]

Table 1: system-level Pearson/Spearman against SEEDA's TrueSkill human scores (TS_sent for
SEEDA-S, TS_edit for SEEDA-E), Base and +Fluency, without TrueSkill (the metric's own corpus
score) and with TrueSkill aggregation of sentence-level pairwise comparisons.  References:
official, annotator 1 missing -> source (as the paper, via gec-metrics).  Neural metrics use the
MiniLM encoder available here (the paper: bert-base-uncased) and are labelled so.
Figure 2: window analysis, N = 8, +Fluency (14 systems).
The metrics side by side (both aggregations in one table): bold best, underlined second best,
and a mark on the metrics not significantly worse than the best of the column (default: the
one-sided Williams test, as the WMT metrics tasks; ``--significance permutation|bootstrap`` for
the seeded resampling tests, see ``gec_meta.report.reproduce``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gec_meta.data.datasets import default_root  # noqa: E402
from gec_meta.report.plots import plot_window_analysis  # noqa: E402
from gec_meta.encoders.loading import ModelLoadError  # noqa: E402
from gec_meta.report.reproduce import (Column, Row, Section, Significance, comparison_section,  # noqa: E402
                                       parse_experiment_args, task, try_metric, write_report)

RESULTS = Path(__file__).resolve().parent / "results"
# (config name, overrides, label, published key)
METRICS = [
    ("errant", (), "ERRANT", "ERRANT"),
    ("pt_errant", ("encoder=minilm",), "PT-ERRANT (MiniLM; paper: BERT)", "PT-ERRANT"),
    ("gleu_corrected", (), "GLEU+", "GLEU+"),
    ("green", (), "GREEN", "GREEN"),
    ("some", (), "SOME", "SOME"),
    ("impara", (), "IMPARA", "IMPARA"),
    ("scribendi", (), "Scribendi (packaged LM; paper: GPT-2)", "Scribendi"),
]
# Table 1: (SEEDA-S Base r, rho, +Flu r, rho, SEEDA-E Base r, rho, +Flu r, rho)
PUBLISHED = {
    ("ERRANT", "default"): (.545, .343, -.591, -.156, .689, .643, -.507, .033),
    ("PT-ERRANT", "default"): (.700, .629, -.546, .077, .788, .874, -.470, .231),
    ("GLEU+", "default"): (.886, .902, .155, .543, .912, .944, .232, .569),
    ("GREEN", "default"): (.925, .881, .185, .569, .932, .965, .252, .618),
    ("SOME", "default"): (.892, .867, .931, .916, .901, .951, .943, .969),
    ("IMPARA", "default"): (.916, .902, .887, .938, .902, .965, .900, .978),
    ("Scribendi", "default"): (.620, .636, .604, .714, .825, .839, .715, .842),
    ("ERRANT", "trueskill"): (.763, .706, -.463, .095, .881, .895, -.374, .231),
    ("PT-ERRANT", "trueskill"): (.870, .797, -.366, .182, .924, .951, -.288, .279),
    ("GLEU+", "trueskill"): (.863, .846, .017, .393, .909, .965, .102, .486),
    ("GREEN", "trueskill"): (.855, .846, -.214, .327, .912, .965, -.135, .420),
    ("SOME", "trueskill"): (.932, .881, .971, .925, .893, .944, .965, .965),
    ("IMPARA", "trueskill"): (.939, .923, .975, .952, .901, .944, .969, .965),
    ("Scribendi", "trueskill"): (.674, .762, .745, .859, .837, .888, .826, .912),
}
COLUMNS = [("SEEDA-S", "base", "TS_sent"), ("SEEDA-S", "fluency", "TS_sent"),
           ("SEEDA-E", "base", "TS_edit"), ("SEEDA-E", "fluency", "TS_edit")]
EXACT = {"ERRANT", "GLEU+", "GREEN"}  # no encoder, no LM: must match
# The side-by-side table: Table 1's eight columns; a column group is a SEEDA setting.
TABLE_COLUMNS = [Column(f"{aspect} {setting} {'r' if kind == 'pearson' else 'ρ'}", setting, human, kind)
                 for aspect, setting, human in COLUMNS for kind in ("pearson", "spearman")]


def table1(root) -> tuple[list[Section], dict, dict]:
    """Sections of our/published rows, the window analyses of Figure 2, and the scored runs of
    the side-by-side table (row label -> {setting: Scored})."""
    sections, windows, scored = [], {}, {"default": {}, "trueskill": {}}
    for name, overrides, label, key in METRICS:
        metric, why = try_metric(name, *overrides)
        for agg in ("default", "trueskill"):
            title = f"{label}, {'w/ TrueSkill' if agg == 'trueskill' else 'w/o TrueSkill'}"
            cmd = (f"python run.py -m dataset=seeda dataset.setting=base,fluency metric={name} "
                   f"{' '.join(overrides)} aggregation={agg} refset.missing_annotator=source").replace("  ", " ")
            if metric is None:
                sections.append(Section(title, text=f"Not available here: {why}", command=cmd))
                continue
            pub = PUBLISHED[(key, agg)]
            tol = (0.01 if key == "ERRANT" and agg == "default" else 0.002) if key in EXACT else None
            rows, runs = [], {}
            for k, (aspect, setting, human) in enumerate(COLUMNS):
                try:
                    res = task(root, "seeda", metric, agg, dataset_options={"setting": setting},
                               refset_options={"missing_annotator": "source"}).run()
                except ModelLoadError as exc:  # e.g. SOME/IMPARA without the users' weights
                    rows = []
                    why = str(exc).split(". Provide")[0]
                    break
                runs[setting] = res.scored
                rows += [Row(f"{aspect} {setting} r", res.system[human]["pearson"], pub[2 * k], tol),
                         Row(f"{aspect} {setting} ρ", res.system[human]["spearman"], pub[2 * k + 1], tol)]
                if name == "errant" and setting == "fluency" and aspect == "SEEDA-E":
                    from gec_meta.meta.evaluation import window_analysis
                    import numpy as np

                    from gec_meta.data.datasets import load_seeda

                    ds = load_seeda(root, "fluency")
                    scores = np.array([res.system_scores[s] for s in ds.systems])
                    windows[f"ERRANT {'w/' if agg == 'trueskill' else 'w/o'} TrueSkill"] = window_analysis(
                        scores, ds.human["TS_edit"], 8)
            if not rows:
                sections.append(Section(title, text=f"Not available here: {why}", command=cmd))
                continue
            sections.append(Section(title, rows, command=cmd))
            scored[agg][title] = {setting: runs[setting] for setting in ("base", "fluency")}
    return sections, windows, {**scored["default"], **scored["trueskill"]}


def side_by_side(scored: dict, significance: Significance) -> Section:
    """Table 1 as the paper prints it (our numbers), with significance marks."""
    return comparison_section(scored, TABLE_COLUMNS, "Table 1 side by side (ours)", (
        "Rows whose metric cannot run here are left out; PT-ERRANT and Scribendi use other "
        "models than the paper."), "rethinking.py", significance)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_experiment_args(sys.argv[1:] if argv is None else argv, __doc__, RESULTS, Significance())
    root = default_root()
    out = args.out
    sections, windows, scored = table1(root)
    sections.insert(0, side_by_side(scored, args.significance))
    png = plot_window_analysis(windows, out / "rethinking_figure2_errant_seeda_e.png",
                               "ERRANT on SEEDA-E +Fluency, window N=8 (Goto et al. 2025, Fig. 2b)")
    sections.append(Section("Figure 2 (b): window analysis, ERRANT, SEEDA-E +Fluency, N = 8",
                            text=f"![window analysis]({png.name})\n\nThe IMPARA panel (a) needs IMPARA's "
                                 "trained weights, which are not available here."))
    intro = ("Regenerated by `.venv/bin/python experiments/rethinking.py`. Rows without a tolerance "
             "use a different model than the paper (encoder or LM) and are reported, not checked. "
             "Tolerance ±0.002 (±0.01 for corpus-level ERRANT, which depends on the spaCy version).")
    print(write_report(out / "rethinking_table1.md", "\"Rethinking\" Table 1 and Figure 2", intro, sections))


if __name__ == "__main__":
    main()
