"""UOT-ERRANT (Goto et al. 2025): Figure 3 (human vs metric system scores on SEEDA-E +Fluency)
and Figure 6 (sentence-level agreement with the human judgments, by system pair).

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python experiments/uot_figures.py [--out DIR]

Setting (§4.1, §5.2): SEEDA +Fluency (14 systems: all but INPUT), SEEDA-E human scores
(TS_edit) and edit-level judgments, every metric aggregated by TrueSkill.  Figure 3's caption
does not name the reference set, so it is drawn for both +Fluency sets of Table 1 (E-Fluency,
NE-Fluency); Figure 6 uses NE-Fluency, as §5.2 states.  Figure 6's agreement is SEEDA's
sentence-level pairwise accuracy (``meta_eval.sentence_variant=seeda``: a metric tie counts as
the second system, in alphabetical order, winning) restricted to one pair of systems
(:func:`gec_meta.meta.evaluation.pairwise_agreement`); ERRANT is shown as absolute agreement, PT-ERRANT
and UOT-ERRANT as the difference from ERRANT, as in the paper.

UOT-ERRANT and PT-ERRANT use MiniLM (all-MiniLM-L6-v2), the only encoder loadable here; the
paper used ELECTRA-base and bert-base-uncased, so their points and cells are not the paper's.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from gec_meta.data.datasets import default_root, load_dataset
from gec_meta.meta.evaluation import pairwise_agreement
from gec_meta.report.plots import (
    agreement_rate,
    plot_pair_heatmaps,
    plot_system_scatter,
)
from gec_meta.report.reproduce import Row, Section, parse_experiment_args, task, try_metric, write_report

RESULTS = Path(__file__).resolve().parent / "results"
HUMAN = "TS_edit"
HIGHLIGHT = ("REF-M", "GPT-3.5", "REF-F")  # the systems the paper labels in Figure 3
FLUENT = ("GPT-3.5", "REF-F")
# (key, config, overrides, options, label)
METRICS = [
    ("ERRANT", "errant", (), {}, "ERRANT"),
    ("PT-ERRANT", "pt_errant", ("encoder=minilm",), {}, "PT-ERRANT, MiniLM (paper: bert-base-uncased)"),
    ("CLEME", "cleme_independent", (), {}, "CLEME (independent)"),
    ("UOT-ERRANT", "uot_errant", ("encoder=minilm",), {"solver": "batched"}, "UOT-ERRANT, MiniLM (paper: ELECTRA-base), λ=0.1"),
    ("GLEU", "gleu_corrected", (), {}, "GLEU"),
    ("GREEN", "green", (), {}, "GREEN"),
]
ENCODER_FREE = {"ERRANT", "CLEME", "GLEU", "GREEN"}
REFSETS = {"ne_fluency": "NE-Fluency", "e_fluency": "E-Fluency"}
# Table 1, +Fluency columns: (E-Fluency r, rho, NE-Fluency r, rho).
TABLE1 = {
    "GLEU": (.278, .600, .781, .921), "GREEN": (.547, .802, .745, .908), "ERRANT": (-.005, .424, .114, .508),
    "PT-ERRANT": (.005, .310, .276, .578), "CLEME": (-.043, .297, .473, .653), "UOT-ERRANT": (.445, .684, .705, .851),
}
TOL = 0.002  # as experiments/uot_tables.py (the TrueSkill rows reproduce to this precision)
SETTING = {"setting": "fluency"}


def sentence_scores(root, metric, refset: str) -> np.ndarray:
    """Sentence scores (S, N) of ``metric`` on SEEDA +Fluency (statistics from the cache)."""
    bound, stats = task(root, "seeda", metric, refset=refset, dataset_options=SETTING).statistics()
    return bound.sentence_scores(stats)


def f3(x) -> str:
    return "–" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.3f}"


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_experiment_args(sys.argv[1:] if argv is None else argv, __doc__, RESULTS)
    root = default_root()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    ds = load_dataset("seeda", root, **SETTING)
    systems = list(ds.systems)
    human = np.asarray(ds.human[HUMAN], dtype=np.float64)
    metrics, missing = {}, []
    for key, name, overrides, opts, label in METRICS:
        metric, why = try_metric(name, *overrides, **opts)
        if metric is None:
            missing.append(f"{label}: not available here ({why})")
        else:
            metrics[key] = (metric, label)

    # ------------------------------------------------------------------ Figure 3
    sections, results = [], {}
    for refset, rname in REFSETS.items():
        panels, rows = [], []
        for key, (metric, label) in metrics.items():
            t = time.perf_counter()
            res = task(root, "seeda", metric, "trueskill", refset, SETTING).run()
            results[(key, refset)] = res
            scores = np.array([res.system_scores[s] for s in systems])
            corr = res.system[HUMAN]
            panels.append({"title": f"{label}\nr = {corr['pearson']:.3f}, ρ = {corr['spearman']:.3f}",
                           "systems": systems, "human": human, "metric": scores, "r": corr["pearson"]})
            pub = TABLE1[key][0:2] if refset == "e_fluency" else TABLE1[key][2:4]
            tol = TOL if key in ENCODER_FREE else None
            note = "" if tol else "MiniLM"
            rows += [Row(f"{label}: r", corr["pearson"], pub[0], tol, note),
                     Row(f"{label}: ρ", corr["spearman"], pub[1], tol, note)]
            print(f"figure 3 {rname} {key}: {time.perf_counter() - t:.1f} s", flush=True)
        png = plot_system_scatter(
            panels, out / f"uot_figure3_{refset}.png",
            f"UOT-ERRANT Fig. 3: SEEDA-E +Fluency (14 systems), references {rname}, TrueSkill aggregation",
            f"human score ({HUMAN}, TrueSkill)", "metric score (TrueSkill μ)", highlight=HIGHLIGHT)
        # the paper's reading of the figure: REF-M vs GPT-3.5, where GPT-3.5 and REF-F land
        lines = ["| metric | rank of REF-M | GPT-3.5 | REF-F | score REF-M > GPT-3.5? | r | ρ |",
                 "|---|---|---|---|---|---|---|"]
        for key, (metric, label) in metrics.items():
            sc = results[(key, refset)]["system_scores"]
            order = sorted(systems, key=lambda s: -sc[s])
            corr = results[(key, refset)]["system"][HUMAN]
            lines.append(f"| {label} | " + " | ".join(str(order.index(s) + 1) for s in HIGHLIGHT)
                         + f" | {'yes' if sc['REF-M'] > sc['GPT-3.5'] else 'no'} | {f3(corr['pearson'])} | "
                         f"{f3(corr['spearman'])} |")
        hum_order = sorted(systems, key=lambda s: -human[systems.index(s)])
        lines.append(f"| human ({HUMAN}) | " + " | ".join(str(hum_order.index(s) + 1) for s in HIGHLIGHT)
                     + f" | {'yes' if human[systems.index('REF-M')] > human[systems.index('GPT-3.5')] else 'no'} | | |")
        score_lines = ["| system | human | " + " | ".join(metrics) + " |", "|---|---|" + "---|" * len(metrics)]
        for i in np.argsort(-human, kind="stable"):
            s = systems[i]
            score_lines.append(f"| {s} | {human[i]:.3f} | "
                               + " | ".join(f"{results[(k, refset)]['system_scores'][s]:.3f}" for k in metrics) + " |")
        text = (f"References {rname}. Each panel: the 14 systems' human {HUMAN} score (x) against the "
                "metric's TrueSkill score (y), the least-squares line and Pearson r (legend); REF-M, "
                "GPT-3.5 and REF-F, the systems the paper labels, in red. Paper (§4.3): \"ERRANT, "
                "PT-ERRANT, and CLEME assign higher scores to REF-M than to GPT-3.5\", while UOT-ERRANT "
                "\"assign[s] relatively high scores to the two systems\" (GPT-3.5, REF-F). Ranks below are "
                "1 = best of 14.\n\n" + "\n".join(lines) + "\n\nSystem scores (TrueSkill μ; systems in human order):\n\n"
                + "\n".join(score_lines) + f"\n\n![Figure 3, {rname}]({png.name})\n\n"
                f"Rows: r / ρ against {HUMAN} next to Table 1's {rname} column (encoder-free metrics "
                f"checked at ±{TOL}, as `uot_tables.py`).\n")
        cmd = (f"python run.py -m dataset=seeda dataset.setting=fluency refset={refset} aggregation=trueskill "
               "metric=errant,cleme_independent,gleu_corrected,green; ... encoder=minilm metric=pt_errant,uot_errant")
        sections.append(Section(f"Figure 3: human vs metric system scores, +Fluency, {rname}", rows, text=text,
                                command=cmd))

    # ------------------------------------------------------------------ Figure 6
    refset = "ne_fluency"
    items = ds.judgments["edit"]
    order = [systems[i] for i in np.argsort(-human, kind="stable")]  # heatmap rows: human order
    perm = [systems.index(s) for s in order]
    rates, totals, wmt = {}, {}, {}
    fig6_keys = [k for k in ("ERRANT", "PT-ERRANT", "UOT-ERRANT") if k in metrics]
    for key in fig6_keys:
        metric, label = metrics[key]
        t = time.perf_counter()
        sent = sentence_scores(root, metric, refset)
        agree, pairs = pairwise_agreement(sent, items, systems, "seeda")
        rates[key] = agreement_rate(agree, pairs)[np.ix_(perm, perm)]
        iu = np.triu_indices(len(systems), k=1)
        totals[key] = agree[iu].sum() / pairs[iu].sum()
        wa, wp = pairwise_agreement(sent, items, systems, "wmt")
        wmt[key] = agreement_rate(wa, wp)[np.ix_(perm, perm)]
        overall = results[(key, refset)]["sentence"]["edit"]["accuracy"]
        assert abs(totals[key] - overall) < 1e-12, (key, totals[key], overall)  # the breakdown sums back
        print(f"figure 6 {key}: {time.perf_counter() - t:.1f} s", flush=True)
    sections.append(figure6(out, order, rates, wmt, totals, pairs[np.ix_(perm, perm)], metrics))
    if missing:
        sections.append(Section("Missing metrics", text="\n".join(f"- {m}" for m in missing)))
    took = time.perf_counter() - t0
    intro = ("Regenerated by `OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python experiments/uot_figures.py` "
             "(Goto et al. 2025, UOT-ERRANT, Figures 3 and 6). SEEDA +Fluency (14 systems), SEEDA-E human "
             "TrueSkill scores (TS_edit) and edit-level judgments, TrueSkill aggregation for every metric. "
             "**UOT-ERRANT and PT-ERRANT use MiniLM (all-MiniLM-L6-v2), the only encoder loadable here; "
             "the paper used ELECTRA-base and bert-base-uncased**, so those points, cells and rows are "
             "reported, not checked. UOT-ERRANT: λ = 0.1 (the paper's), ε = 0.1, `solver=batched`.")
    print(f"uot_figures: wall time {took:.0f} s", file=sys.stderr)
    print(write_report(out / "uot_figures.md", "UOT-ERRANT: Figure 3 (system scatter) and Figure 6 "
                       "(agreement by system pair)", intro, sections))


def figure6(out: Path, order, rates, wmt, totals, pairs, metrics) -> Section:
    base = rates["ERRANT"]
    panels = {f"(a) {metrics['ERRANT'][1]}: agreement": base}
    for tag, key in (("(b)", "PT-ERRANT"), ("(c)", "UOT-ERRANT")):
        if key in rates:
            panels[f"{tag} {metrics[key][1]}\nminus ERRANT"] = rates[key] - base
    png = plot_pair_heatmaps(
        panels, order, out / "uot_figure6_pairwise.png",
        "UOT-ERRANT Fig. 6: sentence-level agreement with SEEDA-E judgments by system pair "
        "(+Fluency, NE-Fluency references; systems in human order)")
    S = len(order)
    lower = np.tril(np.ones((S, S), dtype=bool), k=-1)
    fl = np.array([[(a in FLUENT or b in FLUENT) for b in order] for a in order]) & lower
    other = lower & ~fl
    judged = pairs > 0
    summary = [("| metric | overall accuracy | mean over pairs with GPT-3.5 or REF-F | other pairs | "
               "Δ vs ERRANT, pairs with GPT-3.5/REF-F (mean / max) | Δ, other pairs (mean) | "
               "pairs with Δ > +10 points | same, ties = disagreement (`wmt`): mean Δ GPT-3.5/REF-F |"),
               "|---|---|---|---|---|---|---|---|"]
    for key, m in rates.items():
        d = m - base
        dw = wmt[key] - wmt["ERRANT"]
        cells = [f"{totals[key]:.3f}", f"{np.nanmean(m[fl & judged]):.3f}", f"{np.nanmean(m[other & judged]):.3f}"]
        if key == "ERRANT":
            cells += ["–", "–", "–", "–"]
        else:
            cells += [f"{100 * np.nanmean(d[fl & judged]):+.1f} / {100 * np.nanmax(d[fl & judged]):+.1f} points",
                      f"{100 * np.nanmean(d[other & judged]):+.1f} points",
                      f"{int(np.nansum(d[lower & judged] > 0.10))} of {int((lower & judged).sum())}",
                      f"{100 * np.nanmean(dw[fl & judged]):+.1f} points"]
        summary.append(f"| {metrics[key][1]} | " + " | ".join(cells) + " |")
    detail = ["| pair | judged comparisons | ERRANT | " + " | ".join(f"Δ {k}" for k in rates if k != "ERRANT") + " |",
              "|---|---|---|" + "---|" * (len(rates) - 1)]
    for i, j in zip(*np.nonzero(fl)):
        detail.append(f"| {order[i]} – {order[j]} | {pairs[i, j]} | {f3(base[i, j])} | "
                      + " | ".join(f"{100 * (rates[k][i, j] - base[i, j]):+.1f}" for k in rates if k != "ERRANT") + " |")
    text = ("Figure 6 (§5.2): \"Each cell shows the agreement rate between human and automatic evaluation in "
            "pairwise comparisons. ERRANT shows the absolute values, while PT-ERRANT and UOT-ERRANT indicate the "
            "improvement over ERRANT.\" For systems i, j: over every SEEDA-E judgment (a judge's ranking of "
            "one sentence's outputs) that ranks i and j differently, the share in which the metric's sentence "
            "scores order them the same way (SEEDA's rule: a metric tie counts as the alphabetically later "
            "system winning). Summed over all pairs this is the overall sentence-level accuracy (asserted "
            "equal to `evaluate`'s `sentence.edit.accuracy`). Cells are percent (a) and percentage points "
            "(b, c).\n\nPaper: ERRANT's agreement \"tends to drop when pairs include GPT-3.5 or REF-F\"; "
            "PT-ERRANT \"shows no meaningful improvement\"; UOT-ERRANT \"improves the agreement rate for pairs "
            "involving GPT-3.5 or REF-F by over 10% in some cases\" (no cell values are printed).\n\n"
            + "\n".join(summary) + f"\n\n![Figure 6]({png.name})\n\nPairs involving GPT-3.5 or REF-F "
            "(Δ in percentage points):\n\n" + "\n".join(detail) + "\n")
    cmd = ("python run.py dataset=seeda dataset.setting=fluency refset=ne_fluency aggregation=trueskill "
           "metric=errant; ... encoder=minilm metric=pt_errant,uot_errant  (overall accuracy: results.json "
           "sentence.edit)")
    return Section("Figure 6: sentence-level agreement by system pair (+Fluency, NE-Fluency)", text=text, command=cmd)


if __name__ == "__main__":
    main()
