"""PT-M2 (Gong et al. 2022) on GJG15: Tables 4/5 (overlap and PT metrics), Table 6 (rankings),
Figure 2 (top-K), and the official CoNLL-2014 M2 scores.

    .venv/bin/python experiments/ptm2_tables.py [--out DIR]
        [--significance williams|permutation|bootstrap] [--resamples 1000] [--seed 0]

Human scores: GJG15 Table 3 EW and TS, 13 systems incl. INPUT, all 1,312 sentences.
References: the official M2, M2 semantics (``refset.missing_annotator=annotator0``), as the
PT-M2 code reads them.  "Corpus" = the metric's corpus score (default aggregation);
"sentence" = mean of sentence scores (SentM2, SentERRANT, sentence-level PT metrics).
PT metrics here use MiniLM (the only encoder available offline), not bert-base/BART: those rows
are reported next to the paper's, not checked.
Tables 4/5 side by side: bold best, underlined second best, and a mark on the metrics not
significantly worse than the best of the column (default: one-sided Williams test, as the WMT
metrics tasks; ``--significance permutation|bootstrap`` for the seeded resampling tests, see
``gec_meta.report.reproduce``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gec_meta.data.datasets import default_root, load_gjg15  # noqa: E402
from gec_meta.report.plots import plot_lines  # noqa: E402
from gec_meta.meta.evaluation import top_k  # noqa: E402
from gec_meta.report.reproduce import (Column, Row, Section, Significance, comparison_section,  # noqa: E402
                                       parse_experiment_args, task, try_metric, write_report)

RESULTS = Path(__file__).resolve().parent / "results"
REFS = {"missing_annotator": "annotator0"}

# metric label -> (config, overrides, published (EW r, rho, TS r, rho), tolerance)
TABLE4 = [
    ("M2 (corpus)", "m2", (), (.623, .687, .672, .720), 0.003),
    ("SentM2 (sentence)", "sentm2", (), (.871, .731, .864, .758), 0.003),
    ("GLEU (corpus)", "gleu", (), (.701, .467, .750, .555), 0.003),
    ("ERRANT (corpus)", "errant", ("metric.reference_edits=gold",), (.642, .659, .688, .698), 0.01),
    ("SentERRANT (sentence)", "senterrant", ("metric.reference_edits=gold",), (.870, .742, .846, .747), 0.01),
    ("BERTScore (sentence; MiniLM, paper: BERT)", "bertscore", ("encoder=minilm",), (.262, .074, .166, -.022), None),
    ("PT-M2 corpus (MiniLM, paper: BERT)", "pt_m2", ("encoder=minilm",), (.693, .758, .737, .769), None),
    ("PT-M2 sentence (MiniLM, paper: BERT)", "sent_pt_m2", ("encoder=minilm",), (.949, .907, .938, .874), None),
    ("PT-ERRANT corpus (MiniLM, paper: BERT)", "pt_errant", ("encoder=minilm", "metric.reference_edits=gold"), (.705, .780, .745, .797), None),
    ("PT-ERRANT sentence (MiniLM, paper: BERT)", "sent_pt_errant", ("encoder=minilm", "metric.reference_edits=gold"), (.941, .879, .917, .846), None),
]
# Table 6 rankings (rank 1 -> 13) and their sum of |rank differences| to the EW ranking.
TABLE6 = {
    "M2 (corpus)": ("CAMB CUUI AMU POST NTHU RAC UMC PKU SJTU UFC IPN IITB INPUT", 27),
    "SentM2 (sentence)": ("CUUI AMU CAMB POST NTHU RAC PKU UMC SJTU UFC IITB INPUT IPN", 21),
    "PT-M2 sentence (MiniLM, paper: BERT)": ("AMU CUUI CAMB RAC POST PKU UFC SJTU IITB NTHU INPUT UMC IPN", 12),
    "BERTScore (sentence; MiniLM, paper: BERT)": ("INPUT UFC IITB RAC SJTU PKU AMU POST CUUI UMC IPN CAMB NTHU", 53),
}


# Tables 4/5 side by side: one column group (GJG15, all 13 systems).
TABLE_COLUMNS = [Column(f"{human} {'r' if kind == 'pearson' else 'ρ'}", "gjg15", human, kind)
                 for human in ("EW", "TS") for kind in ("pearson", "spearman")]


def side_by_side(scored: dict, significance: Significance) -> Section:
    """Tables 4/5 as the paper prints them (our numbers), with significance marks."""
    return comparison_section(scored, TABLE_COLUMNS, "Tables 4/5 side by side (ours)", (
        "Rows whose metric cannot run here are left out; the PT and BERTScore rows use MiniLM, "
        "not the paper's BERT."), "ptm2_tables.py", significance)


def official_m2(root) -> Section:
    from gec_meta.data.datasets import GJG15_SYSTEMS

    metric, _ = try_metric("m2")
    res = task(root, "gjg15", metric, refset_options=REFS).run()
    official = {}
    path = root / "gjg15" / "nusnlp-gecmetrics" / "scores" / "system_scores_metrics" / "m2score.txt"
    for line in path.read_text().splitlines():
        cols = line.split("\t")
        official[cols[3]] = float(cols[4])
    rows = [Row(f"{s} F0.5", res.system_scores[s], official[s], 5e-5) for s in GJG15_SYSTEMS if s in official]
    return Section("Official CoNLL-2014 M2 F0.5 of the 12 teams (m2scorer, 2 annotators)", rows,
                   command="python run.py dataset=gjg15 metric=m2 refset.missing_annotator=annotator0")


def ranks(scores: dict[str, float]) -> list[str]:
    return [s for s, _ in sorted(scores.items(), key=lambda kv: -kv[1])]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_experiment_args(sys.argv[1:] if argv is None else argv, __doc__, RESULTS, Significance())
    root = default_root()
    out = args.out
    ds = load_gjg15(root)
    ew_order = [ds.systems[i] for i in np.argsort(-ds.human["EW"], kind="stable")]
    sections = [official_m2(root)]
    scores_by_label, topk_curves, scored = {}, {}, {}
    for label, name, overrides, pub, tol in TABLE4:
        metric, why = try_metric(name, *overrides)
        cmd = f"python run.py dataset=gjg15 metric={name} {' '.join(overrides)} refset.missing_annotator=annotator0"
        if metric is None:
            sections.append(Section(f"Table 4/5: {label}", text=f"Not available here: {why}", command=cmd))
            continue
        res = task(root, "gjg15", metric, refset_options=REFS).run()
        scores_by_label[label] = res.system_scores
        s = res.system
        rows = [Row("EW r", s["EW"]["pearson"], pub[0], tol), Row("EW ρ", s["EW"]["spearman"], pub[1], tol),
                Row("TS r", s["TS"]["pearson"], pub[2], tol), Row("TS ρ", s["TS"]["spearman"], pub[3], tol)]
        sections.append(Section(f"Table 4/5: {label}", rows, command=cmd))
        scored[label] = {"gjg15": res.scored}
        vec = np.array([res.system_scores[x] for x in ds.systems])
        topk_curves[label] = [r["pearson"] for r in top_k(vec, ds.human["EW"])]
    sections.insert(1, side_by_side(scored, args.significance))
    # Table 6: rankings.
    lines = ["| ranking | ours (rank 1 → 13) | Σ|Δ| vs EW ours | published | Σ|Δ| published |", "|---|---|---|---|---|"]
    lines.append(f"| EW (human) | {' '.join(ew_order)} | 0 | | 0 |")
    for label, (pub_rank, pub_delta) in TABLE6.items():
        if label not in scores_by_label:
            continue
        ours = ranks(scores_by_label[label])
        delta = sum(abs(ours.index(x) - ew_order.index(x)) for x in ew_order)
        lines.append(f"| {label} | {' '.join(ours)} | {delta} | {pub_rank} | {pub_delta} |")
    lines.append("")
    lines.append("The published Σ|Δ| cannot be recomputed from the published rankings themselves: "
                 "the sum of |rank − EW rank| over the 13 systems of the paper's own M2 ranking is 32 "
                 "(it prints 27), SentM2 24 (21), PT-M2 14 (12), BERTScore 56 (53); distances to the "
                 "TS ranking or to GJG15's EW rank ranges do not give the printed values either. Our "
                 "column uses the plain definition; our M2 and SentM2 rankings equal the paper's.")
    sections.append(Section("Table 6: system rankings and rank differences to the EW ranking", text="\n".join(lines)))
    png = plot_lines(list(range(13, 3, -1)), topk_curves, out / "ptm2_figure2_topk.png",
                     "Pearson with EW over the top-K systems (PT-M2 Fig. 2)", "K (best K systems by EW)",
                     "Pearson r", invert_x=True)
    sections.append(Section("Figure 2: top-K Pearson (EW)", text=f"![top-K]({png.name})"))
    intro = ("Regenerated by `.venv/bin/python experiments/ptm2_tables.py`. Tolerances: ±0.003 for "
             "M2/SentM2/GLEU (the issue's), ±0.01 for ERRANT. PT rows use MiniLM and are not checked.\n\n"
             "**ERRANT on GJG15.** Pearson agrees within 0.004, Spearman does not (.687 vs .659 EW). "
             "The PT-M2 code (`errant_score.py`) compares ERRANT-extracted hypothesis edits with the "
             "*gold* M2 edits (our `metric.reference_edits=gold`, used here; `extract` is the other "
             "option) and rounds P/R/F to 4 decimals inside the best-reference choice. The remaining "
             "gap is in the hypothesis edits: the paper used ERRANT 2.x on spaCy 2, we use ERRANT "
             "3.0.2 on spaCy 3.8, and the corpus scores of several mid-ranked systems lie within 0.002 "
             "of each other, so a few changed edits reorder them (Spearman moves, Pearson barely). "
             "The rows stay marked DIFF rather than tuned.")
    print(write_report(out / "ptm2_tables.md", "PT-M2 paper: Tables 4-6 and Figure 2 (GJG15)", intro, sections))


if __name__ == "__main__":
    main()
