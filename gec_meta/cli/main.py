"""``gec-meta``: score and rank your own systems, and inspect edits.

    gec-meta score --src SRC --hyp SYS1.txt SYS2.txt --ref REF.m2 --metric m2
    gec-meta score --src SRC --hyp A B --ref R1 R2 --metric pt_m2 -c encoder=minilm --aggregation trueskill --json
    gec-meta score --src SRC --hyp-m2 SYS.errant --ref REF.errant --metric cleme_dependent_corpus
    gec-meta rank  --src SRC --hyp A B C --ref R1 R2 --metric gleu_corrected --aggregation default trueskill
    gec-meta errant-types --src SRC --hyp SYS.txt --ref R1 R2 [--cat 3] [--reference-edits gold]
    gec-meta attribute --src SRC --hyp SYS.txt --ref R1 --metric sentm2 --method shapley [--json] [--png P]
    gec-meta uot-align --dataset seeda --system GPT-3.5 --sentence 12 [--encoder minilm]
    gec-meta data [--dest DIR] [--mirror DIR]     # fetch the benchmarks (sha256-verified)
    gec-meta leaderboard [--metrics m2,errant] [--out DIR]   # WMT-style ranking of the metrics
    gec-meta report DIR [--html FILE]                        # summary tables / one page of a run or sweep

System names are the hypothesis file names without extension.  ``--ref`` takes plain-text
references (one file per annotator) or one M2 file (all its annotators; gold edits for M2-based
metrics, and their texts; a sentence is compared only with the annotators that have a line in
it, as m2scorer and errant_compare do: ``missing_annotator=skip``); a file is M2 when it is
named ``*.m2`` or ``*.errant`` (ERRANT's and CLEME's), plain text otherwise, or as
``--ref-format m2|text`` says (a file named as text that starts like an M2 file, or the
reverse, is an error).  Every text is read in Unicode NFC with format characters (RLM, ZWSP,
ZWJ, a BOM inside a file, ...) removed, reported once per file; ``--unicode raw`` keeps the
bytes' text.  ``--hyp-m2`` takes systems as
M2 files of their edits (one annotator): every metric scores the corrected text, and edit
metrics that can (CLEME, ERRANT, PT-ERRANT, UOT-ERRANT) score the file's edits instead of
re-extracting them; a metric with a ``reference_edits`` field then compares them with the
reference M2's gold edits (``reference_edits=gold``, unless ``-m reference_edits=...`` says
otherwise).  CLEME's own published setting (its ``scripts/evaluate.py``: corpus level,
weights alpha 2 in [0.75, 1.25]) is ``--metric cleme_dependent_corpus`` (or
``cleme_independent_corpus``); ``cleme_dependent`` is SentCLEME with the UOT-ERRANT paper's
weights; ``cleme2_dependent`` (``_independent``, ``_corpus``) is CLEME2.0 and prints its hit,
wrong, under and over rates.  Hydra overrides of other config groups go in ``-c`` (``-c encoder=minilm``), metric
fields in ``-m`` (``-m beta=1.0``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Sequence


from gec_meta.meta.aggregation import load_aggregation
from gec_meta.data.io import DEFAULT_UNICODE, check_nonempty, check_same_length, read_lines
from gec_meta.data.m2 import read_hypothesis_m2
from gec_meta.data.datasets import Dataset
from gec_meta.data.refsets import read_references  # noqa: F401  (read_references: public here too)
from gec_meta.cli.options import add_input_options, metric_options  # noqa: F401  (public here too)
from gec_meta.cli.process_end import freeze_heap
from gec_meta.cli.errors import install_warning_format, interrupted, reliable_ctrl_c, report
from gec_meta.errors import ConfigError
from gec_meta.meta.task import Task

# Aggregations that compare systems pairwise (meaningless for one system).
PAIRWISE_AGGREGATIONS = frozenset({"expected_wins", "trueskill"})


def files_dataset(sources: Sequence[str], systems: Sequence[str], hypotheses: Sequence[Sequence[str]],
                  files: Sequence[str] = (), unicode: str = DEFAULT_UNICODE) -> Dataset:
    """Your own systems as a :class:`Dataset` without human judgments (scored, not meta-evaluated).

    Args:
        sources: shape (N,).
        systems: shape (S,).
        hypotheses: shape (S, N).
        files: shape (S,), the file of each system (for messages), or empty.
        unicode: how the files were read (enters the signature).
    """
    return Dataset("files", "", "files", tuple(sources), tuple(systems), tuple(tuple(h) for h in hypotheses),
                   MappingProxyType({}), MappingProxyType({}), tuple(range(len(sources))),
                   options=MappingProxyType({"unicode": unicode}),
                   files=MappingProxyType({s: str(f) for s, f in zip(systems, files)}))


def _score(args) -> dict:
    from gec_meta.api import load_metric

    sources = read_lines(args.src, unicode=args.unicode)
    check_nonempty(sources, args.src)
    hyp_m2 = args.hyp_m2 or []
    if not args.hyp and not hyp_m2:
        raise ConfigError("give the systems with --hyp (text files) and/or --hyp-m2 (M2 files of their edits)")
    names = [Path(h).stem for h in [*args.hyp, *hyp_m2]]
    if len(set(names)) != len(names):
        raise ConfigError(f"--hyp/--hyp-m2: two systems share a file name: {names}")
    hyps = [read_lines(h, unicode=args.unicode) for h in args.hyp]
    check_same_length({args.src: sources, **dict(zip(args.hyp, hyps))})
    hyps += [read_hypothesis_m2(h, sources, args.unicode) for h in hyp_m2]
    options = metric_options(args.metric_option)
    aggregations = [load_aggregation(a) for a in args.aggregation]
    for agg_name in args.aggregation:
        if agg_name in PAIRWISE_AGGREGATIONS and len(names) < 2:
            raise ConfigError(f"--aggregation {agg_name} compares systems pairwise: give at least two --hyp files")
    metric = load_metric(args.metric, *args.config, option_flag="-m ", override_flag="-c ", **options)
    if hyp_m2 and getattr(metric, "accepts_hypothesis_edits", False) and "reference_edits" not in options \
            and getattr(metric, "reference_edits", "gold") != "gold":
        # Given hypothesis edits are compared with the references' gold edits (M2 --ref: the
        # file's; text --ref: ERRANT's), not with edits re-extracted from reference texts.
        metric = dataclasses.replace(metric, reference_edits="gold")
    refs = None
    if metric.needs_references:
        if not args.ref:
            raise ConfigError(f"metric {args.metric} needs references (--ref)")
        refs = read_references(args.ref, sources, args.ref_format, args.unicode)
    ds = files_dataset(sources, names, hyps, [*args.hyp, *hyp_m2], args.unicode)
    first = Task(ds, metric, aggregations[0], refs).score()
    signature = "|".join([f"data:{ds.signature()}", f"refs:{refs.signature() if refs is not None else 'none'}",
                          f"metric:{first.metric.signature()}"])
    out: dict = {"metric": first.metric.signature(), "signature": signature, "systems": {}}
    for agg_name, agg in zip(args.aggregation, aggregations):
        scored = first if agg is aggregations[0] else first.reaggregate(agg)
        for name, score in zip(names, scored.system_scores):
            out["systems"].setdefault(name, {})[agg_name] = float(score)
    metric, stats = first.metric, first.stats
    if hasattr(metric, "corpus_components"):  # CLEME2.0: hit, wrong, under, over (+ counts) at its level
        for key, values in metric.corpus_components(stats).items():
            for k, name in enumerate(names):
                out["systems"][name][key] = float(values[k])
    elif hasattr(metric, "corpus_prf"):  # edit metrics: P/R/F at the metric's level (corpus or sentence means)
        p, r, f = metric.corpus_prf(stats)
        for k, name in enumerate(names):
            out["systems"][name].update(precision=float(p[k]), recall=float(r[k]), f=float(f[k]))
    out["ranking"] = sorted(names, key=lambda s: -out["systems"][s][args.aggregation[0]])
    return out


def _print_table(out: dict, aggregations: Sequence[str]) -> None:
    cols = list(aggregations)
    has_prf = any("precision" in v for v in out["systems"].values())
    extra = ["precision", "recall", "f"] if has_prf else \
        [k for k in ("hit", "wrong", "under", "over") if any(k in v for v in out["systems"].values())]
    header = ["rank", "system", *cols] + (["P", "R", "F"] if has_prf else [k.upper() for k in extra])
    rows = []
    for rank, name in enumerate(out["ranking"], start=1):
        v = out["systems"][name]
        cells = [str(rank), name, *(f"{v[c]:.4f}" for c in cols)] + [f"{v[k]:.4f}" for k in extra]
        rows.append(cells)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(f"# {out['signature']}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


def _errant_types(args) -> dict:
    from gec_meta.metrics.edit.core import reference_kind_for
    from gec_meta.report.error_types import errant_by_type

    sources = read_lines(args.src, unicode=args.unicode)
    check_nonempty(sources, args.src)
    hyp = read_lines(args.hyp, expected=len(sources), unicode=args.unicode)
    refs = read_references(args.ref, sources, args.ref_format, args.unicode)
    return errant_by_type(sources, hyp, refs.for_metric(reference_kind_for(args.reference_edits)), beta=args.beta,
                          level=args.cat, reference_edits=args.reference_edits)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gec-meta", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    for cmd in ("score", "rank"):
        p = sub.add_parser(cmd, help="score systems" if cmd == "score" else "rank systems")
        p.add_argument("--src", required=True, help="tokenised source sentences, one per line")
        p.add_argument("--hyp", nargs="+", default=[], help="one file per system")
        p.add_argument("--hyp-m2", nargs="+", default=[],
                       help="one M2 file of edits per system (one annotator), e.g. errant_parallel output")
        p.add_argument("--ref", nargs="*", default=[], help="reference files, or one M2 file")
        p.add_argument("--metric", default="m2", help="a config of conf/metric (m2, errant, pt_m2, ...; CLEME's own "
                            "published setting: cleme_dependent_corpus)")
        p.add_argument("--aggregation", nargs="+", default=["default"],
                       help="default, average, trueskill, expected_wins (the first ranks)")
        p.add_argument("-c", "--config", action="append", default=[], help="Hydra override, e.g. encoder=minilm")
        p.add_argument("-m", "--metric-option", action="append", default=[], help="metric field, e.g. beta=1.0")
        p.add_argument("--json", action="store_true", help="print JSON")
        add_input_options(p)
    p = sub.add_parser("errant-types", help="ERRANT P/R/F per error type (errant_compare -cat)")
    p.add_argument("--src", required=True)
    p.add_argument("--hyp", required=True)
    p.add_argument("--ref", nargs="+", required=True)
    p.add_argument("--cat", type=int, default=3, choices=[1, 2, 3])
    p.add_argument("--beta", type=float, default=0.5)
    p.add_argument("--reference-edits", choices=["extract", "gold"], default="extract",
                   help="extract: the references' edits and types re-extracted by ERRANT (metric=errant's default); "
                        "gold: an M2 --ref file's own edits and types (errant_compare -ref REF.m2 -cat)")
    p.add_argument("--json", action="store_true")
    add_input_options(p)
    sub.add_parser("attribute", add_help=False,
                   help="each hypothesis edit's contribution to a sentence-level score (add, sub, Shapley)")
    sub.add_parser("uot-align", add_help=False,
                   help="UOT-ERRANT transport plan of one sentence (printed and as a PNG heatmap)")
    sub.add_parser("leaderboard", add_help=False,
                   help="every metric x every benchmark: r, ρ, SPA, acc_eq, significance clusters and the "
                        "global ranking (Markdown, LaTeX, CSV, PNG)")
    sub.add_parser("report", add_help=False,
                   help="collate a run or sweep folder into summary tables, or (--html FILE) one interactive page")
    sub.add_parser("data", add_help=False,
                   help="fetch the benchmark data into $GEC_META_DATA or the per-user data folder "
                        "(from --mirror DIR or the public sources, sha256-verified)")
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(ap, argv)
    except KeyboardInterrupt:  # Ctrl-C: one line, exit 130
        command = next((a for a in argv if not a.startswith("-")), "")
        return interrupted(f"gec-meta {command}".strip(), _KEPT.get(command, ""), cache=command != "data")
    except Exception as exc:  # user errors: one line, exit 2; bugs keep their traceback
        status = report(exc)
        if status is None:
            raise
        return status


#: What a subcommand interrupted by Ctrl-C leaves, beyond the cache.
_KEPT = {"leaderboard": "no leaderboard file was written (each is written whole, at the end)",
         "data": "the files fetched and verified so far are kept, and running it again fetches the others"}


def _dispatch(ap: argparse.ArgumentParser, argv: list[str]) -> int:
    if argv[:1] == ["attribute"]:
        from gec_meta.cli.attribute import main as attribute_main

        return attribute_main(argv[1:])
    if argv[:1] == ["uot-align"]:
        from gec_meta.cli.uot_align import main as uot_main

        return uot_main(argv[1:])
    if argv[:1] == ["leaderboard"]:
        from gec_meta.cli.leaderboard import main as leaderboard_main

        return leaderboard_main(argv[1:])
    if argv[:1] == ["report"]:
        from gec_meta.cli.report import main as report_main

        return report_main(argv[1:])
    if argv[:1] == ["data"]:
        from gec_meta.data.fetch import main as data_main

        return data_main(argv[1:])
    args = ap.parse_args(argv)
    if args.command in ("score", "rank"):
        out = _score(args)
        if args.json:
            print(json.dumps(out, indent=1))
        elif args.command == "rank":
            for agg in args.aggregation:
                order = sorted(out["systems"], key=lambda s: -out["systems"][s][agg])
                print(f"{agg:>14}: " + " > ".join(order))
        else:
            _print_table(out, args.aggregation)
    else:
        out = _errant_types(args)
        if args.json:
            print(json.dumps(out, indent=1))
        else:
            print(f"{'type':<14}{'TP':>7}{'FP':>7}{'FN':>7}{'P':>9}{'R':>9}{'F' + str(args.beta):>9}")
            for t, v in out.items():
                print(f"{t:<14}{v['tp']:>7}{v['fp']:>7}{v['fn']:>7}{v['p']:>9.4f}{v['r']:>9.4f}{v['f']:>9.4f}")
    return 0


def console_main() -> int:
    """Console entry ``gec-meta``: :func:`main` with gec-meta's warnings printed as one line and
    a Ctrl-C that no callback can swallow (:func:`gec_meta.cli.errors.reliable_ctrl_c`)."""
    install_warning_format()
    with reliable_ctrl_c():
        status = main()
    freeze_heap()  # a quick exit: gec_meta.cli.process_end
    return status


if __name__ == "__main__":
    raise SystemExit(console_main())
