"""Inspect UOT-ERRANT transport plans (Goto et al. 2025, §4.3, Figure 4).

    python -m gec_meta.cli.uot_align --dataset seeda --system GPT-3.5 --sentence 12 [--encoder minilm]
        [--sentences subset|all] [--refset official] [--reference best|K] [--reg-m 0.1] [--out DIR]

    # the paper's Figure 4 example (CoNLL-2014 line 392, expert fluency reference B):
    python -m gec_meta.cli.uot_align --dataset seeda --sentences all --system GPT-3.5 --sentence 391 --refset e_fluency

Prints, for one sentence of one system, the hypothesis x reference edit alignment (edits as
``[start, end, "correction"]`` token spans of the source, their masses a and b, the cost matrix
C and the plan T, and TP/FP/FN, P/R/F0.5 from Eqs. 7-12) and writes a heatmap PNG of T with the
hypothesis edits on the y-axis and the reference edits on the x-axis, like Figure 4.

``--sentence`` is the 0-based index into the dataset's sentences (file line = index + 1).
``--reference best`` (default) shows the reference with the highest sentence F0.5 (the one
UOT-ERRANT scores against, ties -> first); every reference's F0.5 is listed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

import numpy as np

from gec_meta.errors import ConfigError
from gec_meta.outputs import save_figure
from gec_meta.metrics.edit.uot import Alignment


def edit_label(e) -> str:
    """``[start, end, "correction"]`` as in Figure 4."""
    return f'[{e.start}, {e.end}, "{e.correction}"]'


def format_alignment(al: Alignment) -> str:
    """Plain-text rendering of an :class:`Alignment` (edits, masses, cost, plan, scores)."""
    lines = []
    H, G = len(al.hyp_edits), len(al.ref_edits)
    lines.append(f"hypothesis edits (H = {H}):")
    for i, e in enumerate(al.hyp_edits):
        lines.append(f"  h{i}  {edit_label(e):<30} {e.type:<12} a = {al.a[i]:.4f}  transported {al.T[i].sum():.4f}")
    lines.append(f"reference edits (G = {G}):")
    for j, e in enumerate(al.ref_edits):
        lines.append(f"  r{j}  {edit_label(e):<30} {e.type:<12} b = {al.b[j]:.4f}  received    {al.T[:, j].sum():.4f}")
    if H and G:
        head = "      " + "".join(f"{'r' + str(j):>9}" for j in range(G))
        lines.append("cost C (rows: hypothesis, columns: reference):")
        lines.append(head)
        lines += [f"  h{i:<3}" + "".join(f"{al.C[i, j]:9.4f}" for j in range(G)) for i in range(H)]
        lines.append("plan T:")
        lines.append(head)
        lines += [f"  h{i:<3}" + "".join(f"{al.T[i, j]:9.4f}" for j in range(G)) for i in range(H)]
    else:
        lines.append("(one side has no edits: nothing is transported)")
    lines.append(f"TP = {al.tp:.4f}  FP = {al.fp:.4f}  FN = {al.fn:.4f}   "
                 f"P = {al.precision:.4f}  R = {al.recall:.4f}  F0.5 = {al.f:.4f}")
    return "\n".join(lines)


def plot_alignment(al: Alignment, path: str | Path, title: str = "") -> Path:
    """Heatmap of T (hypothesis edits on y, bottom to top; reference edits on x), Figure 4."""
    from matplotlib.figure import Figure

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    H, G = al.T.shape
    fig = Figure(figsize=(1.6 + 1.3 * max(G, 1), 1.2 + 0.6 * max(H, 1)))
    ax = fig.subplots()
    if H and G:
        im = ax.imshow(al.T, origin="lower", cmap="Blues", aspect="auto", vmin=0.0)
        for i in range(H):
            for j in range(G):
                v = al.T[i, j]
                ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=8,
                        color="white" if v > 0.6 * al.T.max() else "black")
        fig.colorbar(im, ax=ax, fraction=0.04, label="transported mass")
    ax.set_yticks(range(H), [f"{edit_label(e)}  a={al.a[i]:.2f}" for i, e in enumerate(al.hyp_edits)], fontsize=7)
    ax.set_xticks(range(G), [f"{edit_label(e)}\nb={al.b[j]:.2f}" for j, e in enumerate(al.ref_edits)],
                  fontsize=7, rotation=30, ha="right")
    ax.set_ylabel("hypothesis edits")
    ax.set_xlabel("reference edits")
    ax.set_title((title + "\n" if title else "") + f"P={al.precision:.3f} R={al.recall:.3f} F0.5={al.f:.3f}", fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path, 130)


def check_choice(dataset, system: str, sentence: int) -> None:
    """``--system`` must be a system of the dataset and ``--sentence`` one of its sentence indices.

    Raises:
        ConfigError: naming the option and the valid choices or range.
    """
    if system not in dataset.systems:
        raise ConfigError(f"--system {system!r} is not a system of {dataset.name} "
                          f"({dataset.setting}); choose from {', '.join(dataset.systems)}")
    if not 0 <= sentence < len(dataset.sources):
        raise ConfigError(f"--sentence {sentence} out of range 0..{len(dataset.sources) - 1} "
                          f"(0-based index into the {len(dataset.sources)} sentences of {dataset.name})")


def inspect_sentence(metric, dataset, references, system: str, sentence: int, reference: str = "best"):
    """Alignments of one sentence of one system against every reference.

    Returns:
        (chosen reference index, list of (reference name, Alignment)) for every reference.
    """
    check_choice(dataset, system, sentence)
    s = dataset.systems.index(system)
    src = dataset.sources[sentence]
    hyp = dataset.hypotheses[s][sentence]
    refs = references.for_metric("text")
    names = list(references.names) if hasattr(references, "names") else [f"ref{r}" for r in range(len(refs))]
    als = [(names[r], metric.align(src, hyp, refs[r][sentence])) for r in range(len(refs))]
    if reference == "best":
        stats = np.array([[[[al.tp, al.fp, al.fn] for _, al in als]]])
        k = int(metric.best_reference(stats)[0, 0])
    else:
        try:
            k = int(reference)
        except ValueError:
            raise ConfigError(f"--reference {reference!r}: 'best' or a reference index 0..{len(als) - 1}") from None
        if not 0 <= k < len(als):
            raise ConfigError(f"--reference {k} out of range 0..{len(als) - 1}")
    return k, als


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Print and plot a UOT-ERRANT transport plan (Figure 4).")
    ap.add_argument("--dataset", default="seeda", help="seeda | gjg15 | gmeg_wiki")
    ap.add_argument("--setting", default=None, help="dataset setting (SEEDA default: all, every system)")
    ap.add_argument("--sentences", default=None, help="SEEDA: subset (391, default) | all (1,312)")
    ap.add_argument("--system", required=True)
    ap.add_argument("--sentence", type=int, required=True, help="0-based sentence index (line = index + 1)")
    ap.add_argument("--refset", default="official")
    ap.add_argument("--reference", default="best", help="best | reference index")
    ap.add_argument("--encoder", default="minilm", help="conf/encoder name (the paper: electra_base)")
    ap.add_argument("--metric", default="uot_errant", help="conf/metric name")
    ap.add_argument("--reg-m", type=float, default=None, help="lambda (default: the metric config's)")
    ap.add_argument("--out", default="outputs/uot_inspect", help="folder of the PNG")
    ap.add_argument("--data", default=None, help="data directory (default: $GEC_META_DATA or ./data)")
    args = ap.parse_args(argv)
    from gec_meta.cli.errors import report

    try:
        return _run(args)
    except Exception as exc:
        status = report(exc)
        if status is None:
            raise
        return status


def _run(args) -> int:
    from gec_meta.api import load_metric
    from gec_meta.data.datasets import default_root, load_dataset
    from gec_meta.data.refsets import load_refset

    root = Path(args.data) if args.data else default_root()
    opts = {}
    if args.dataset == "seeda":
        opts["setting"] = args.setting or "all"
        if args.sentences:
            opts["sentences"] = args.sentences
    elif args.setting:
        opts["setting"] = args.setting
    ds = load_dataset(args.dataset, root, **opts)
    check_choice(ds, args.system, args.sentence)
    refs = load_refset(args.refset, ds, root)
    extra = {} if args.reg_m is None else {"reg_m": args.reg_m}
    metric = load_metric(args.metric, f"encoder={args.encoder}", **extra)
    k, als = inspect_sentence(metric, ds, refs, args.system, args.sentence, args.reference)
    s = ds.systems.index(args.system)
    print(f"{ds.name} ({ds.setting}) sentence {args.sentence} (line {args.sentence + 1}), system {args.system}, "
          f"encoder={args.encoder}, λ={metric.reg_m:g}, ε={metric.reg:g}")
    print(f"source:     {ds.sources[args.sentence]}")
    print(f"hypothesis: {ds.hypotheses[s][args.sentence]}")
    for r, (name, al) in enumerate(als):
        mark = "  <- shown" if r == k else ""
        print(f"reference {r} ({name}): F0.5 = {al.f:.4f}{mark}")
    name, al = als[k]
    print(f"reference:  {refs.for_metric('text')[k][args.sentence]}")
    print(format_alignment(al))
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in args.system)
    png = plot_alignment(
        al, Path(args.out) / f"uot_plan_{args.dataset}_{safe}_{args.sentence}_{args.encoder}.png",
        f"{args.dataset} {args.system} sentence {args.sentence}, ref {name}, {args.encoder}, λ={metric.reg_m:g}")
    print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
