"""Swedish (Östling et al., LREC-COLING 2024) and MultiGEC-2025 section of the multilingual report.

    .venv/bin/python experiments/multilingual_sv.py [--out DIR] [--bootstrap 1000]

Writes ``DIR/multilingual_sv.md`` (default ``experiments/results/``):

1. Östling et al. Table 4 (mean human rating per system and CEFR level) from Katarina's
   annotations, ours / published / difference, with the json-versus-file text checks.
2. The paper's GLEU (Table 2) and Scribendi (Table 3) numbers, quoted from the repository's
   ``evaluation/correlation_analysis.py`` (computed on the full test set, which the repository
   does not hold), and the Pearson r the repository's script computes from them.
3. System- and sentence-level meta-evaluation on ``dataset=ostling2024`` of the metrics that run
   on Swedish: GLEU and GREEN, and the edit metrics (ERRANT, M2, CLEME) where the language
   dispatch (``gec_meta.edits.languages``) gives them the language-independent extractor.
4. MultiGEC-2025: the official scores against the human means per team, with bootstrap
   intervals over the rated texts and the chance level.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np
import scipy.stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gec_meta.data.datasets import default_root, load_dataset  # noqa: E402
from gec_meta.data.multigec import (MULTIGEC_ASPECTS, MULTIGEC_COLUMNS, MULTIGEC_LANGUAGES,  # noqa: E402
                                    multigec_ratings, multigec_systems, official_scores)
from gec_meta.data.swedish import OSTLING_LEVELS, OSTLING_SYSTEMS, text_mismatches  # noqa: E402
from gec_meta.errors import GecMetaError  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
NAMES = {"granska": "Granska", "mt": "MT", "s2": "GPT-3", "mm": "Human fluent (mm)", "mw": "Human free (mw)"}
ASPECT_NAMES = {"grammaticality": "Grammaticality", "fluency": "Fluency", "meaning": "Meaning preservation"}
LEVELS = ("all", *OSTLING_LEVELS)
# Östling et al. (2024) Table 4 (evaluation/correlation_analysis.py, human_scores): All, A, B, C.
TABLE4_ROWS = """
grammaticality granska 3.0 3.1 2.5 3.3 | mt 3.3 3.4 3.0 3.5 | s2 3.7 3.8 3.6 3.8 | mm 3.9 3.9 3.8 3.9 | mw 3.9 3.9 3.9 3.8
fluency granska 2.8 3.0 2.3 3.2 | mt 3.1 3.2 2.7 3.3 | s2 3.6 3.7 3.4 3.7 | mm 3.8 3.8 3.7 3.8 | mw 3.8 3.8 3.9 3.8
meaning granska 3.5 3.5 3.2 3.7 | mt 3.4 3.5 3.1 3.6 | s2 3.4 3.6 3.1 3.6 | mm 3.9 4.0 3.9 3.8 | mw 3.8 3.8 3.8 3.8
"""


def _table4() -> dict[str, dict[str, tuple[float, ...]]]:
    out = {}
    for line in TABLE4_ROWS.strip().splitlines():
        aspect, rest = line.split(" ", 1)
        cells = [part.split() for part in rest.split("|")]
        out[aspect] = {c[0]: tuple(float(x) for x in c[1:]) for c in cells}
    return out


TABLE4 = _table4()
# Tables 2 and 3 (same file, automatic_scores): system -> All, A, B, C.
TABLE2_GLEU = {"Uncorrected": (0.44, 0.29, 0.17, 0.53), "Granska": (0.47, 0.35, 0.24, 0.55),
               "MT": (0.57, 0.48, 0.38, 0.63), "GPT-3": (0.63, 0.60, 0.52, 0.65),
               "Human minimal": (1.00, 1.00, 1.00, 1.00)}
TABLE3_SCRIBENDI = {"Uncorrected": (0.00, 0.00, 0.00, 0.00), "Granska": (0.03, 0.08, 0.11, -0.01),
                    "MT": (0.51, 0.57, 0.68, 0.43), "GPT-3": (0.69, 0.70, 0.83, 0.65),
                    "Human minimal": (0.68, 0.67, 0.77, 0.65)}
PAPER_SYSTEM = {"granska": "Granska", "mt": "MT", "s2": "GPT-3"}
TEXT_METRICS = ("gleu", "green")
EDIT_METRICS = ("errant", "m2", "cleme_dependent")


def fmt(x: float, d: int = 3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{d}f}"


def table4_section(root: Path) -> list[str]:
    out = ["## Östling et al. (2024), Table 4: mean human ratings", "",
           "Katarina's ratings of the balanced test set (`ostling/annotations/balanced_{A,B,C}/katarina.json`; the "
           "repository README: only her annotations of these files are used in the paper), 64 sentences per CEFR "
           "level, `dataset=ostling2024 dataset.level=all|A|B|C`. A rating of 0 means \"other\" (no rating) and is "
           "left out of the means, as the repository's `annotator/analyze_annotations.py` (`summarize`) does. "
           "Cells: ours (2 decimals) / published (1 decimal) / ours rounded to 1 decimal − published.", ""]
    data = {lv: load_dataset("ostling2024", root, level=lv) for lv in LEVELS}
    diffs = []
    for aspect, rows in TABLE4.items():
        out += [f"**{ASPECT_NAMES[aspect]}**", "", "| system | " + " | ".join(LEVELS) + " |",
                "|---|" + "---|" * len(LEVELS)]
        for i, system in enumerate(OSTLING_SYSTEMS):
            cells = []
            for k, lv in enumerate(LEVELS):
                ours = float(data[lv].human[aspect][i])
                diff = round(float(f"{ours:.1f}") - rows[system][k], 1)
                diffs.append(diff)
                cells.append(f"{ours:.2f} / {rows[system][k]:.1f} / {diff:+.1f}")
            out.append(f"| {NAMES[system]} | " + " | ".join(cells) + " |")
        out.append("")
    ds = data["all"]
    others = {a: int(np.isnan(v).sum()) for a, v in ds.segment_scores.items()}
    with_zero = {}
    for aspect in TABLE4:
        seg = np.nan_to_num(ds.segment_scores[aspect][:, 64:128], nan=0.0)  # level B, 0 counted
        with_zero[aspect] = seg.mean(axis=1)
    ok = sum(d == 0 for d in diffs)
    out += [f"**Table 4: {ok} of {len(diffs)} rows within tolerance (the printed precision, one decimal).**", ""]
    out += [f"Largest |difference| {max(abs(d) for d in diffs):.1f}"
            + (": the only difference is the rounding to one decimal. " if ok == len(diffs) else ". ")
            + f"\"Other\" (0) ratings: {others} of {ds.num_systems * ds.num_sentences} per aspect (level A has one "
            f"sentence rated \"other\" for all five outputs; in B, Granska's meaning has 8). Counting them as 0 "
            f"would not reproduce the table: level B meaning would be "
            f"{', '.join(f'{NAMES[s]} {v:.2f}' for s, v in zip(OSTLING_SYSTEMS, with_zero['meaning']))} "
            f"(published 3.2, 3.1, 3.1, 3.9, 3.8).", "",
            "`mt-large` (a balanced-test output file) was rated by nobody (it is in neither annotation json), "
            "so it is no system of the dataset; the paper's Table 4 has no such row either.", ""]
    out += ["**Texts.** The json's `original` and `reference` equal `orig.txt` and `corr.txt` on every line "
            "(checked at load time). The rated `output` is the annotation tool's tokenisation of the system "
            "files; lines that differ after whitespace normalisation (`dataset.text=rated`, the default, uses the "
            "rated text; `dataset.text=files` the files):", "", "| level | " + " | ".join(OSTLING_SYSTEMS) + " |",
            "|---|" + "---|" * len(OSTLING_SYSTEMS)]
    for lv in OSTLING_LEVELS:
        mism = text_mismatches(root, lv)
        out.append(f"| {lv} | " + " | ".join(str(len(mism[s])) for s in OSTLING_SYSTEMS) + " |")
    out += ["", "GPT-3's file (`s2`) is untokenised (`Nu saknar jag den.`, rated as `Nu saknar jag den .`); the "
            "`mm`/`mw` differences are a colon or comma split off (`Funktionsnedsättning:`) and, once, a token: "
            "C `mw` line 6 ends in `svartjobb ,` in the file and `svartjobb` in the json.", ""]
    return out


def paper_metric_section() -> list[str]:
    out = ["## The paper's GLEU and Scribendi numbers (quoted, not recomputed)", "",
           "Tables 2 and 3 of the paper were computed on the full test split (`Nyberg.CEFR_{A,B,C}.test`, e.g. "
           "1,719 level-A sentences in `evaluation/scribendi.out.paper`), which is not in the repository; "
           "the balanced 64-sentence sets are a subset. The numbers below are quoted from "
           "`evaluation/correlation_analysis.py` (robertostling/gec-evaluation @ 5ac8180, `automatic_scores`).", "",
           "| system | GLEU All | A | B | C | Scribendi All | A | B | C |", "|---|---|---|---|---|---|---|---|---|"]
    for s in TABLE2_GLEU:
        out.append(f"| {s} | " + " | ".join(f"{x:.2f}" for x in TABLE2_GLEU[s]) + " | "
                   + " | ".join(f"{x:.2f}" for x in TABLE3_SCRIBENDI[s]) + " |")
    out += ["", "That script correlates each metric with each human aspect over the systems both tables name: "
            "only Granska, MT and GPT-3 (the metric tables have \"Uncorrected\" and \"Human minimal\", the human "
            "table \"Human fluent\"/\"Human free\"), so N = 3. Its Pearson r (level All), recomputed here from the "
            "quoted numbers with scipy:", "", "| metric | Grammaticality | Fluency | Meaning preservation |",
            "|---|---|---|---|"]
    for label, table in (("GLEU", TABLE2_GLEU), ("Scribendi", TABLE3_SCRIBENDI)):
        cells = []
        for aspect in TABLE4:
            x = [table[PAPER_SYSTEM[s]][0] for s in ("granska", "mt", "s2")]
            y = [TABLE4[aspect][s][0] for s in ("granska", "mt", "s2")]
            cells.append(f"{scipy.stats.pearsonr(x, y).statistic:.2f}")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out.append("")
    return out


def ostling_metrics_section(root: Path, bootstrap: int) -> list[str]:
    from gec_meta.api import load_metric, meta_evaluate

    dispatch = importlib.util.find_spec("gec_meta.edits.languages") is not None
    out = ["## Metrics on `dataset=ostling2024` (level all: 192 sentences, 5 systems)", "",
           f"Reference `corr.txt` (SweLL's minimal correction, one reference); text `rated`. System level: Pearson, "
           f"Spearman and pairwise accuracy against each aspect's mean rating (chance level of pairwise accuracy "
           f"in brackets), 95% bootstrap interval of Pearson ({bootstrap} resamples of the sentences, seed 0; "
           f"gec-meta's `meta_eval.bootstrap_samples`: the metric's system scores are recomputed on each resample, "
           f"the human means stay fixed, so the interval shows the metric's sampling noise only). "
           "Sentence level: acc_eq (tie-calibrated pairwise accuracy, Deutsch et al. 2023; chance in brackets) "
           "and PDP on the ratings, as for GMEG. With N = 5 systems a system-level correlation is very uncertain.",
           ""]
    metrics = list(TEXT_METRICS) + list(EDIT_METRICS)
    ds = load_dataset("ostling2024", root, level="all")
    rows, scores, notes = [], {}, []
    for name in metrics:
        if name in EDIT_METRICS and not dispatch:
            notes.append(f"`{name}`: not run — this branch has no language dispatch (`gec_meta.edits.languages`) "
                         f"yet, and ERRANT's English parser must not extract Swedish edits; rerun after the merge "
                         f"(the language-independent extractor `generic-align:1` then serves it).")
            continue
        t0 = time.perf_counter()
        try:
            res = meta_evaluate(ds, load_metric(name), root=root, bootstrap_samples=bootstrap, spa_permutations=0)
        except GecMetaError as exc:
            notes.append(f"`{name}`: {exc}")
            continue
        scores[name] = res.system_scores
        for aspect in TABLE4:
            sysr, sent = res.system[aspect], (res.sentence or {}).get(aspect, {})
            ci = sysr.get("ci", {}).get("pearson", [float("nan")] * 2)
            rows.append(f"| {name} | {aspect} | {fmt(sysr['pearson'])} [{fmt(ci[0])}, {fmt(ci[1])}] | "
                        f"{fmt(sysr['spearman'])} | {fmt(sysr['pairwise_accuracy'])} ({fmt(sysr['pairwise_accuracy_random'])}) | "
                        f"{fmt(sent.get('acc_eq'))} ({fmt(sent.get('acc_eq_random'))}) | {fmt(sent.get('pdp'))} |")
        notes.append(f"`{name}` signature: `{res.signature}`")
        print(f"{name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    out += ["| metric | aspect | Pearson [95% CI] | Spearman | pairwise acc. (chance) | acc_eq (chance) | PDP |",
            "|---|---|---|---|---|---|---|", *rows, ""]
    if scores:
        out += ["System scores:", "", "| metric | " + " | ".join(NAMES[s] for s in OSTLING_SYSTEMS) + " |",
                "|---|" + "---|" * len(OSTLING_SYSTEMS)]
        for name, sc in scores.items():
            out.append(f"| {name} | " + " | ".join(fmt(sc[s], 4) for s in OSTLING_SYSTEMS) + " |")
        out.append("")
    out += [f"* {n}" for n in notes] + [""]
    return out


def extractor_section() -> list[str]:
    """The language-independent extractor against ERRANT where both run: English (SEEDA Base)."""
    from gec_meta.edits.extract import errant_extractor, significant
    from gec_meta.edits.generic import generic_extractor

    ds = load_dataset("seeda", setting="base")
    pairs = [(ds.sources[n], h[n]) for h, s in zip(ds.hypotheses, ds.systems) for n in range(ds.num_sentences)
             if s in ds.systems[:4] and ds.sources[n] != h[n]]
    same = both = n_errant = n_generic = 0
    for a, b in zip(errant_extractor().extract(pairs), generic_extractor().extract(pairs)):
        ka, kb = {e.key for e in significant(a)}, {e.key for e in b}
        same += ka == kb
        both += len(ka & kb)
        n_errant += len(ka)
        n_generic += len(kb)
    return ["## The language-independent extractor against ERRANT (English)", "",
            f"Where both run — SEEDA Base, the first 4 systems ({', '.join(ds.systems[:4])}), the "
            f"{len(pairs)} outputs that differ from their source — `generic-align:1` (ERRANT's alignment with the "
            f"character cost only, ERRANT's merging rules without POS) gives the same edit set (start, end, "
            f"correction) as ERRANT on {same / len(pairs):.1%} of them; {both / n_generic:.1%} of its {n_generic} "
            f"edits are ERRANT's and it finds {both / n_errant:.1%} of ERRANT's {n_errant}. This is the extractor "
            f"that gives M2/ERRANT-style metrics and CLEME their edits on Swedish.", ""]


def chance_spearman(n: int, observed: float) -> float:
    """P(Spearman >= observed) for a uniformly random order of n systems (exact, n! orders)."""
    base = np.arange(n)
    hits = [scipy.stats.spearmanr(base, p).statistic >= observed - 1e-12 for p in itertools.permutations(base)]
    return float(np.mean(hits))


def multigec_section(root: Path, bootstrap: int) -> list[str]:
    out = ["## MultiGEC-2025: official scores against the human ratings", "",
           "Text-free, system level only: the shared task's texts are not public, so the metrics are the official "
           "test scores (`results/test_results_{minimal,fluency}.md`, `metric=multigec_official "
           "metric.column=gleu|precision|recall|f05|scribendi`) and the human score is the mean rating over the "
           "50 rated texts (`annotation/{swe,eng}_eval`). Systems: the rated submissions with official scores — "
           "minimal track Lattice, Rum-Cull, UAM-CSI; fluency track Rum-Cull, UAM-CSI; `all` = the five (each "
           "with its own track's scores; Rum-Cull's two rows are the same numbers, its ratings differ). The rated "
           "ORIGINAL and REFERENCE have no official score and the baseline has no ratings. **N ≤ 7 systems per "
           "language (here 2–5): with so few points a correlation is mostly noise, and with N = 2 it is always "
           "±1.** 95% bootstrap intervals resample the rated texts (human means recomputed; the official scores "
           f"are fixed), {bootstrap} resamples, seed 0; chance: P(Spearman ≥ observed) under a random order of "
           "the N systems (exact), and pairwise accuracy's chance level 0.5.", ""]
    rng = np.random.default_rng(0)
    for language, (_, heading, corpus) in MULTIGEC_LANGUAGES.items():
        for track in ("minimal", "fluency", "all"):
            systems = multigec_systems(track)
            n = len(systems)
            official = official_scores(root, language, track)
            ratings = multigec_ratings(root, language, track)
            out += [f"**{heading} ({corpus}), track {track}** — N = {n}: " + ", ".join(
                f"{s} (G {ratings['grammaticality'][i].mean():.2f}, F {ratings['fluency'][i].mean():.2f})"
                for i, s in enumerate(systems)), "",
                "| official metric | aspect | Pearson [95% CI] | Spearman [95% CI] | P(chance ≥ ρ) | pairwise acc. |",
                "|---|---|---|---|---|---|"]
            idx = rng.integers(0, ratings["grammaticality"].shape[1], size=(bootstrap, ratings["grammaticality"].shape[1]))
            for column in MULTIGEC_COLUMNS:
                m = official[column]
                for aspect in MULTIGEC_ASPECTS:
                    h = ratings[aspect].mean(axis=1)
                    if n < 2 or np.ptp(m) == 0 or np.ptp(h) == 0:
                        out.append(f"| {column} | {aspect} | – (constant) | – | – | – |")
                        continue
                    r = scipy.stats.pearsonr(m, h).statistic if n > 2 else float(np.sign((m[1] - m[0]) * (h[1] - h[0])))
                    rho = scipy.stats.spearmanr(m, h).statistic
                    boot_h = ratings[aspect][:, idx].mean(axis=2).T  # (B, S)
                    rs, rhos = [], []
                    for b in boot_h:
                        if np.ptp(b) > 0:
                            rs.append(np.corrcoef(m, b)[0, 1])
                            rhos.append(scipy.stats.spearmanr(m, b).statistic)
                    lo, hi = np.percentile(rs, [2.5, 97.5]) if rs else (np.nan, np.nan)
                    rlo, rhi = np.percentile(rhos, [2.5, 97.5]) if rhos else (np.nan, np.nan)
                    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if h[i] != h[j]]
                    acc = np.mean([np.sign(m[i] - m[j]) == np.sign(h[i] - h[j]) for i, j in pairs]) if pairs else np.nan
                    out.append(f"| {column} | {aspect} | {fmt(r)} [{fmt(lo)}, {fmt(hi)}] | {fmt(rho)} [{fmt(rlo)}, "
                               f"{fmt(rhi)}] | {fmt(chance_spearman(n, rho))} | {fmt(acc)} |")
            out.append("")
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS, help="folder of the report (default: %(default)s)")
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--data", type=Path, default=None)
    args = ap.parse_args(argv)
    root = args.data or default_root()
    t0 = time.perf_counter()
    lines = ["# Swedish (Östling et al. 2024) and MultiGEC-2025", "",
             f"Generated by `experiments/multilingual_sv.py` (`--bootstrap {args.bootstrap}`).", ""]
    lines += table4_section(root)
    lines += paper_metric_section()
    lines += extractor_section()
    lines += ostling_metrics_section(root, args.bootstrap)
    lines += multigec_section(root, args.bootstrap)
    print(f"multilingual_sv: total time {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "multilingual_sv.md").write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out / 'multilingual_sv.md'}")


if __name__ == "__main__":
    main()
