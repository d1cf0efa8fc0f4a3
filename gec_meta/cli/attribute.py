"""``gec-meta attribute``: how much each hypothesis edit contributes to a sentence-level score.

    gec-meta attribute --src S --hyp H [--ref R ...] --metric M --method add|sub|shapley [--json]
        [--line N] [--png PATH] [--by-type [--cat 1|2|3]] [--max-exact-edits 10 (0..16)]
        [--num-samples 1000 (1..10000)] [--seed 0] [--normalize] [-c OVERRIDE] [-m FIELD=VALUE]

``--src``/``--hyp`` are files of tokenised sentences (one per line; ``--ref`` as for ``score``:
plain-text references or one M2 file).  Every sentence (or only line ``--line N``, 1-based) is
attributed; the output is, per sentence, ``src_score`` (the source's score), ``sent_score``
(the hypothesis'), its ERRANT ``edits`` as [start, end, correction, type] and their
``attribution`` (:mod:`gec_meta.analysis.attribution`).  ``--json`` prints one object for one
sentence, a list for several.  ``--png`` draws the sentence (one sentence only) with each edit
coloured by its contribution.  ``--by-type`` prints, instead, per ERRANT error type the number of
edits and their mean / total attribution over all sentences: which error types the metric
rewards.  A corpus-level metric (``m2``, ``errant``, ``gleu``) is attributed through its
sentence-level form (best reference per sentence).
"""

from __future__ import annotations

import argparse
import json
from typing import Sequence

from gec_meta.analysis.attribution import MAX_EXACT_EDITS, MAX_EXACT_EDITS_LIMIT, MAX_NUM_SAMPLES, METHODS, NUM_SAMPLES
from gec_meta.errors import ConfigError


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="gec-meta attribute", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, help="tokenised source sentences, one per line")
    ap.add_argument("--hyp", required=True, help="tokenised hypotheses, one per line")
    ap.add_argument("--ref", nargs="*", default=[], help="reference files, or one M2 file")
    ap.add_argument("--metric", default="sentm2", help="a config of conf/metric (sentm2, senterrant, some, ...)")
    ap.add_argument("--method", default="shapley", choices=METHODS)
    ap.add_argument("--line", type=int, default=None, help="attribute only this line (1-based)")
    ap.add_argument("--max-exact-edits", type=int, default=MAX_EXACT_EDITS,
                    help=f"exact Shapley values up to this many edits (0..{MAX_EXACT_EDITS_LIMIT}: 2^E edited "
                         "sentences), sampled beyond")
    ap.add_argument("--num-samples", type=int, default=NUM_SAMPLES,
                    help=f"edit orders for sampled Shapley values (1..{MAX_NUM_SAMPLES})")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sampled edit orders (>= 0)")
    ap.add_argument("--normalize", action="store_true",
                    help="rescale add/sub values to sum to sent_score - src_score (as gec-metrics)")
    ap.add_argument("--by-type", action="store_true", help="mean attribution per ERRANT error type")
    ap.add_argument("--cat", type=int, default=3, choices=[1, 2, 3], help="ERRANT type level for --by-type")
    ap.add_argument("--png", default=None, help="write the sentence with coloured edits to this PNG")
    ap.add_argument("--format", default="text", choices=["text", "md", "csv", "tsv", "latex"],
                    help="table format of --by-type")
    ap.add_argument("-c", "--config", action="append", default=[], help="Hydra override, e.g. encoder=minilm")
    ap.add_argument("-m", "--metric-option", action="append", default=[], help="metric field, e.g. beta=1.0")
    ap.add_argument("--json", action="store_true", help="print JSON")
    from gec_meta.cli.options import add_input_options

    add_input_options(ap)
    return ap


def run(args) -> tuple[list[str], list]:
    """Read the files and attribute; returns (sentence labels, attributions)."""
    from gec_meta.analysis.attribution import attribute
    from gec_meta.api import load_metric
    from gec_meta.cli.options import metric_options
    from gec_meta.data.refsets import read_references
    from gec_meta.data.io import check_nonempty, read_lines

    sources = read_lines(args.src, unicode=args.unicode)
    check_nonempty(sources, args.src)
    hyps = read_lines(args.hyp, expected=len(sources), unicode=args.unicode)
    metric = load_metric(args.metric, *args.config, option_flag="-m ", override_flag="-c ",
                         **metric_options(args.metric_option))
    refs = None
    if metric.needs_references:
        if not args.ref:
            raise ConfigError(f"metric {args.metric} needs references (--ref)")
        refs = read_references(args.ref, sources, args.ref_format, args.unicode).for_metric(
            getattr(metric, "reference_kind", "text"))
    lines = list(range(len(sources)))
    if args.line is not None:
        if not 1 <= args.line <= len(sources):
            raise ConfigError(f"--line {args.line}: {args.src} has lines 1..{len(sources)}")
        lines = [args.line - 1]
        sources, hyps = [sources[lines[0]]], [hyps[lines[0]]]
        if refs is not None:  # keep the stand-in mask of a user's M2 (ReferenceRows)
            refs = refs.sentences(lines) if hasattr(refs, "sentences") else [[r[lines[0]]] for r in refs]
    if args.png and len(lines) != 1:
        raise ConfigError(f"--png draws one sentence: give --line N ({args.src} has {len(lines)} lines)")
    atts = attribute(metric, sources, hyps, refs, args.method, max_exact_edits=args.max_exact_edits,
                     num_samples=args.num_samples, seed=args.seed, sentence_ids=lines, normalize=args.normalize)
    return [f"line {n + 1}" for n in lines], atts


def type_table(summary: dict, fmt: str = "text") -> str:
    """The ``--by-type`` table: type, count, mean, total, positive, negative."""
    from gec_meta.report.tables import render

    rows = [{"type": t, **v} for t, v in summary.items()]
    return render(rows, ["type", "count", "mean", "total", "positive", "negative"], fmt, digits=4)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    labels, atts = run(args)
    if args.png:
        from gec_meta.report.attribution_plot import plot_attribution

        plot_attribution(atts[0], args.png)
    if args.by_type:
        from gec_meta.analysis.attribution import summarize_by_type

        summary = summarize_by_type(atts, args.cat)
        print(json.dumps(summary, indent=1) if args.json else type_table(summary, args.format), end="\n" if args.json else "")
        return 0
    if args.json:
        out = [a.to_json() for a in atts]
        print(json.dumps(out[0] if len(out) == 1 else out, indent=1))
        return 0
    for label, att in zip(labels, atts):
        kind = att.method + (f", sampled: {att.samples} orders, seed {list(att.seed)}" if att.sampled else "")
        print(f"{label}: src_score {att.src_score:.4f}  sent_score {att.sent_score:.4f}  "
              f"({kind}; sum {float(att.attribution.sum()):+.4f})")
        for e, a in zip(att.edits, att.attribution):
            print(f"  {a:+9.4f}  [{e.start}, {e.end}, {e.correction!r}]  {e.type}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
