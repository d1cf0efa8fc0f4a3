"""The lambda search of UOT-ERRANT on GJG15 (Goto et al. 2025, §4.1), and its collation.

Setting (§4.1): epsilon = ``reg`` fixed at 0.1; lambda_1 = lambda_2 = ``reg_m`` over
[0.02, 1.00] in steps of 0.02 (:data:`LAMBDAS`, 50 values); the chosen lambda has the highest
system-level Pearson correlation with the GJG15 human scores, ties broken by the higher Spearman.
The paper does not say which GJG15 human score (EW or TS) nor whether the metric scores were
TrueSkill-aggregated there.  Our reading (configurable): TrueSkill aggregation, as the paper uses
"for all metrics" (§4.1, "Computation of System-level Scores"), against GJG15's TrueSkill (TS)
human scores, the ranking GJG15 itself reports as final; EW is reported alongside.  Ties are
judged at the precision the paper reports correlations (3 decimals); a remaining tie goes to
the smaller lambda.

Two ways to run it:

* Hydra sweep + collation::

      python run.py -m experiment=uot_lambda_search encoder=minilm
      python -m gec_meta.report.lambda_search outputs/multirun/uot_lambda_search [--human TS] [--out DIR]

  (each job writes ``results.json`` and ``config.yaml``; the collation reads ``metric.reg_m``
  from the config and the correlations from the results, names the chosen lambda and writes
  ``uot_lambda_search.{md,json,png}``);
* in-process, :func:`search` (used by ``bench/bench_uot.py`` and ``experiments/uot_tables.py``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import Sequence

from gec_meta.outputs import save_figure, write_output

LAMBDAS: tuple[float, ...] = tuple(round(0.02 * k, 2) for k in range(1, 51))  # §4.1
DEFAULT_HUMAN = "TS"


@dataclasses.dataclass(frozen=True)
class LambdaResult:
    """Correlations of one lambda: human name -> (pearson, spearman); seconds spent."""

    reg_m: float
    correlations: dict
    seconds: float | None = None

    def pearson(self, human: str) -> float:
        return float(self.correlations[human]["pearson"])

    def spearman(self, human: str) -> float:
        return float(self.correlations[human]["spearman"])


def select_lambda(results: Sequence[LambdaResult], human: str = DEFAULT_HUMAN, decimals: int | None = 3) -> LambdaResult:
    """The paper's rule: highest Pearson, ties -> higher Spearman, then the smaller lambda.

    Args:
        results: shape (L,).
        human: the human score to correlate with (``TS`` or ``EW`` on GJG15).
        decimals: correlations are compared rounded to this many decimals (the paper's
            precision); None compares exact values.
    """
    if not results:
        raise ValueError("no lambda results to choose from")
    missing = [r.reg_m for r in results if human not in r.correlations]
    if missing:
        raise KeyError(f"human score {human!r} missing for lambda {missing}; have {sorted(results[0].correlations)}")

    def q(x: float) -> float:
        return round(x, decimals) if decimals is not None else x

    return max(results, key=lambda r: (q(r.pearson(human)), q(r.spearman(human)), -r.reg_m))


def search(
    metric,
    lambdas: Sequence[float] = LAMBDAS,
    root=None,
    dataset: str = "gjg15",
    refset: str = "official",
    aggregation: str = "trueskill",
    dataset_options: dict | None = None,
    use_cache: bool = False,
    progress=None,
    refset_options: dict | None = None,
) -> list[LambdaResult]:
    """Evaluate ``metric`` with every ``reg_m`` in ``lambdas`` in this process.

    The first lambda computes (or reads) the edit vectors; later ones reuse the process-wide
    problem memo of :mod:`gec_meta.metrics.edit.uot`, so they cost the Sinkhorn iterations only.
    ``use_cache=False`` skips the per-lambda statistics cache, so timings measure the transport.
    ``refset_options``: e.g. ``{"missing_annotator": "source"}``, the UOT-ERRANT paper's GJG15
    references (gec-metrics' REF1 has the source where annotator 1 is missing), not the
    dataset's default.

    Returns:
        shape (L,), with the wall time of each lambda.
    """
    from gec_meta.data.datasets import default_root, load_dataset
    from gec_meta.data.refsets import load_refset
    from gec_meta.meta.aggregation import load_aggregation
    from gec_meta.meta.task import Task

    root = default_root() if root is None else root
    ds = load_dataset(dataset, root, **(dataset_options or {}))
    refs = load_refset(refset, ds, root, **(refset_options or {}))
    agg = load_aggregation(aggregation)
    out = []
    for lam in lambdas:
        m = dataclasses.replace(metric, reg_m=float(lam))
        t0 = time.perf_counter()
        res = Task(ds, m, agg, refs, window=None, sentence_level=False, spa_permutations=0, use_cache=use_cache).run()
        out.append(LambdaResult(float(lam), res.system, time.perf_counter() - t0))
        if progress:
            progress(out[-1])
    return out


def collect(folder: str | Path) -> list[LambdaResult]:
    """Results of a Hydra sweep folder (``*/results.json`` + ``*/config.yaml``), by lambda."""
    import yaml

    from gec_meta.formats import read_results

    folder = Path(folder)
    out = []
    for res_path in sorted(folder.glob("**/results.json")):
        cfg_path = res_path.parent / "config.yaml"
        if not cfg_path.is_file():
            raise FileNotFoundError(f"{cfg_path} missing next to {res_path}")
        cfg = yaml.safe_load(cfg_path.read_text(encoding="utf-8"))
        reg_m = (cfg.get("metric") or {}).get("reg_m")
        if reg_m is None:
            raise ValueError(f"{cfg_path}: metric.reg_m not set (not a UOT-ERRANT run?)")
        res = read_results(res_path)  # by key, its format version checked
        timing = res_path.parent / "timing.json"
        # timing.json: seconds per stage, plus the job's cache counters and LLM usage (dicts)
        secs = (sum(v for v in json.loads(timing.read_text()).values() if isinstance(v, (int, float)))
                if timing.is_file() else None)
        out.append(LambdaResult(float(reg_m), res["system"], secs))
    if not out:
        raise FileNotFoundError(f"no */results.json under {folder}")
    return sorted(out, key=lambda r: r.reg_m)


def plot(results: Sequence[LambdaResult], chosen: LambdaResult, path: str | Path, title: str) -> Path:
    """Correlation vs lambda (Pearson and Spearman for every human score), chosen lambda marked."""
    from matplotlib.figure import Figure

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    x = [r.reg_m for r in results]
    for human in sorted(results[0].correlations):
        ax.plot(x, [r.pearson(human) for r in results], marker=".", label=f"{human} Pearson")
        ax.plot(x, [r.spearman(human) for r in results], ls="--", label=f"{human} Spearman")
    ax.axvline(chosen.reg_m, color="k", lw=0.8, alpha=0.6)
    ax.annotate(f"λ = {chosen.reg_m:g}", (chosen.reg_m, ax.get_ylim()[0]), xytext=(4, 4),
                textcoords="offset points", fontsize=8)
    ax.set_xlabel("λ1 = λ2 (reg_m), ε = 0.1")
    ax.set_ylabel("system-level correlation")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return save_figure(fig, path, 120)


def report(results: Sequence[LambdaResult], human: str = DEFAULT_HUMAN, title: str = "") -> tuple[str, LambdaResult]:
    """Markdown table of every lambda and the chosen one."""
    chosen = select_lambda(results, human)
    humans = sorted(results[0].correlations)
    head = "| λ | " + " | ".join(f"{h} r | {h} ρ" for h in humans) + " | s |"
    lines = [head, "|" + "---|" * (2 * len(humans) + 2)]
    for r in results:
        mark = " **←**" if r is chosen else ""
        cells = " | ".join(f"{r.pearson(h):.3f} | {r.spearman(h):.3f}" for h in humans)
        secs = "" if r.seconds is None else f"{r.seconds:.2f}"
        lines.append(f"| {r.reg_m:.2f}{mark} | {cells} | {secs} |")
    text = (f"{title}\n\nChosen λ = **{chosen.reg_m:g}** (highest {human} Pearson "
            f"{chosen.pearson(human):.3f}, Spearman {chosen.spearman(human):.3f}; paper: λ = 0.1 "
            f"with ELECTRA-base).\n\n" + "\n".join(lines) + "\n")
    return text, chosen


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Collate a UOT-ERRANT lambda sweep (Goto et al. 2025 §4.1).")
    ap.add_argument("folder", help="Hydra multirun folder of `run.py -m experiment=uot_lambda_search`")
    ap.add_argument("--human", default=DEFAULT_HUMAN, help="human score to select on (TS | EW)")
    ap.add_argument("--out", default=None, help="output folder (default: the multirun folder)")
    args = ap.parse_args(argv)
    results = collect(args.folder)
    out = Path(args.out or args.folder)
    text, chosen = report(results, args.human, f"# UOT-ERRANT λ search ({args.folder})")
    png = plot(results, chosen, out / "uot_lambda_search.png", f"UOT-ERRANT λ search on GJG15 ({len(results)} values)")
    write_output(out / "uot_lambda_search.md", text + f"\n![correlation vs λ]({png.name})\n")
    write_output(out / "uot_lambda_search.json", json.dumps(
        {"human": args.human, "chosen_reg_m": chosen.reg_m,
         "results": [dataclasses.asdict(r) for r in results]}, indent=1) + "\n")
    print(text)
    print(f"chosen lambda (reg_m) = {chosen.reg_m:g}; wrote {out / 'uot_lambda_search.md'} and {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
