"""SEEDA README table: metric system scores on the full CoNLL-2014 test set (``outputs/all``).

    .venv/bin/python experiments/seeda_readme.py [--out DIR]

The SEEDA repository's README lists, for the 15 systems on all 1,312 sentences, the scores of
M2, SentM2, PT-M2, ERRANT, SentERRANT, PT-ERRANT, GoToScorer, GLEU, ... computed with the two
official references built with M2 semantics (annotator 1 missing -> annotator 0).  We recompute
every column whose metric exists here and compare at the printed precision.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gec_meta.data.datasets import default_root  # noqa: E402
from gec_meta.report.reproduce import (Row, Section, parse_experiment_args, task, try_metric,  # noqa: E402
                                       write_report)

RESULTS = Path(__file__).resolve().parent / "results"
# column -> (metric config, overrides, scale, note)
COLUMNS = {
    "M2": ("m2", (), 100, ""),
    "SentM2": ("sentm2", (), 100, ""),
    "ERRANT": ("errant", (), 100, "reference edits re-extracted by ERRANT"),
    "ERRANT ": ("errant", ("metric.reference_edits=gold",), 100, "gold M2 reference edits"),
    "SentERRANT": ("senterrant", (), 100, "reference edits re-extracted by ERRANT"),
    "SentERRANT ": ("senterrant", ("metric.reference_edits=gold",), 100, "gold M2 reference edits"),
    "GLEU": ("gleu", (), 100, "official script, 500 iterations"),
    "GoToScorer": ("gotoscorer", (), 100, ""),
}


def published(root: Path) -> dict[str, dict[str, str]]:
    with (root / "seeda" / "readme_metric_scores.tsv").open(encoding="utf-8") as fh:
        return {row["system"]: row for row in csv.DictReader(fh, delimiter="\t")}


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


SPREAD_SEEDS = 20


def gleu_spread(root: Path, table: dict, scores: dict) -> Section:
    """GLEU's corpus score is a mean over 500 sampled reference assignments, so it carries
    sampling noise.  Its spread is measured by re-running the official procedure with the
    per-iteration seeds shifted (``metric.seed=k``, k = 1..SPREAD_SEEDS); a published value
    within 2 standard deviations (plus the rounding half-unit) is consistent with the official
    script run under a different random state."""
    import numpy as np

    draws = []
    for k in range(1, SPREAD_SEEDS + 1):
        metric, _ = try_metric("gleu", f"metric.seed={k}")
        res = task(root, "seeda", metric, dataset_options={"setting": "all", "sentences": "all"},
                   refset_options={"missing_annotator": "annotator0"}).run()
        draws.append([res.system_scores[s] for s in table])
    sd = 100 * np.std(np.array(draws), axis=0, ddof=1)
    rows = []
    for (system, row), spread in zip(table.items(), sd):
        text = row["GLEU"]
        ours = 100 * scores[system]
        half = 0.5 * 10 ** (-decimals(text))
        z = (ours - float(text)) / spread
        rows.append(Row(system, round(ours, decimals(text) + 2), float(text), round(half + 2 * spread, 4),
                        note=f"sd {spread:.4f}, z {z:+.2f}"))
    text = (f"Standard deviation of the 500-iteration estimator over {SPREAD_SEEDS} shifted seeds "
            f"(`metric.seed=1..{SPREAD_SEEDS}`); tolerance = rounding half-unit + 2 sd.  Every published "
            "value lies within about 1 sd of ours: the residual above is the reference-sampling noise "
            "of the statistic itself (sd 0.013-0.020, larger than the printed precision), i.e. SEEDA's "
            "numbers come from a different random state of the same procedure.  Our seeding is the "
            "official script's (`random.seed(101 * j)`), which reproduces PT-M2 Table 4's GLEU rows.")
    return Section("GLEU: reference-sampling spread", rows, text=text)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_experiment_args(sys.argv[1:] if argv is None else argv, __doc__, RESULTS)
    root = default_root()
    table = published(root)
    sections = []
    for column, (name, overrides, scale, note) in COLUMNS.items():
        metric, why = try_metric(name, *overrides)
        cmd = f"python run.py metric={name} {' '.join(overrides)} dataset=seeda dataset.setting=all dataset.sentences=all refset.missing_annotator=annotator0"
        if metric is None:
            sections.append(Section(f"{column}", text=f"Not available here: {why}", command=cmd))
            continue
        res = task(root, "seeda", metric, dataset_options={"setting": "all", "sentences": "all"},
                   refset_options={"missing_annotator": "annotator0"}).run()
        rows = []
        for system, row in table.items():
            text = row[column.strip()]
            ours = scale * res.system_scores[system]
            tol = 0.5 * 10 ** (-decimals(text))
            rows.append(Row(system, round(ours, decimals(text) + 2), float(text), tol))
        sections.append(Section(f"{column}" + (f" ({note})" if note else ""), rows, command=cmd))
        if name == "gleu":
            sections.append(gleu_spread(root, table, res.system_scores))
    intro = ("Regenerated by `.venv/bin/python experiments/seeda_readme.py`. Tolerance: half a unit "
             "of the printed precision (the README rounds). Scores ×100.\n\n"
             "* **M2** reproduces all 15 systems exactly; **SentM2** 14 of 15.  REF-F (48.93 vs 48.99) is "
             "not a scorer difference: an independent transliteration of PT-M2's sentence-level "
             "m2scorer (pygongnlp/PT-M2 `m2score/levenshtein.py` + `load_annotation`, run outside the "
             "project) gives 48.9328 on this REF-F file, equal to ours sentence by sentence (1,312/1,312), "
             "and the published values of the other systems (e.g. GPT-3.5 53.2806, REF-M 62.3036).  The "
             "README's REF-F number was therefore computed from other inputs (REF-F is the only output "
             "that merges two source sentences into one line, lines 96-97).\n"
             "* **ERRANT / SentERRANT** differ by up to 0.5 (GPT-3.5) with either reference-edit source: "
             "the table was made with an older ERRANT/spaCy, and corpus edit counts follow the parser "
             "(the same cause as the ±0.01 residual of the corpus-level ERRANT rows of \"Rethinking\").\n"
             "* **GLEU**: 8-9 of 15 at the printed precision, the rest within 0.015; the official "
             "script's sampling and arithmetic are reproduced exactly (checked against a "
             "transliteration of the script to 1e-13).  The residual is the sampling noise of the "
             "statistic: its standard deviation over reference draws (0.013-0.020) exceeds the "
             "printed precision, and every published value is within 1 sd of ours (section "
             "*GLEU: reference-sampling spread*).\n"
             "* **GoToScorer** equals the authors' tool: an independent transliteration of gotutiyan/GTS "
             "`gotoscorer.py`, run outside the project on M2 files written from our ERRANT edits, gives "
             "our 15 scores to 4 decimals (weights identical chunk by chunk).  The GTS rules matter: "
             "gec-metrics' simpler rule left every system 0.15-1.24 too high.  The remaining residual "
             "(−0.12…+0.62, mixed signs) is therefore in the ERRANT edits themselves, the same cause "
             "and size as the ERRANT column's: the table was made with an older ERRANT/spaCy.")
    print(write_report(args.out / "seeda_readme_table.md", "SEEDA README metric table (outputs/all)",
                       intro, sections))


if __name__ == "__main__":
    main()
