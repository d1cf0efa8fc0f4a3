"""CLEME (and the edit core) on edits read from M2 files (issue 19, item 7).

Independent values: CLEME's published outputs (its README and ``scripts/evaluate.py``
docstring, THUKElab/CLEME v1.0, commit 5fc7617) and the output of that official code run on
its own example files (``data/cleme/``, copied unchanged from ``tests/examples/``), plus hand
calculations written out below.
"""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from gec_meta.cli.main import main, read_references
from gec_meta.data.refsets import reference_format
from gec_meta.data.m2 import EditedSentence, GoldEdit, read_hypothesis_m2
from gec_meta.errors import DataError
from gec_meta.metrics.edit.cleme import CLEME, cleme_kept, gold_spans
from gec_meta.metrics.edit.core import given_edits, hypothesis_edits_digest

REPO = Path(__file__).resolve().parents[1]

#: CLEME's corpus-level weights (``cleme/constants.py``: DEFAULT_CONFIG_CORPUS_DEPENDENT and
#: _INDEPENDENT, identical): TP, FP, FN alpha 2, clipped to [0.75, 1.25], FP reversed.
CORPUS_WEIGHTS = dict(tp_alpha=2.0, tp_min=0.75, tp_max=1.25, fp_alpha=2.0, fp_min=0.75, fp_max=1.25,
                      fn_alpha=2.0, fn_min=0.75, fn_max=1.25)
#: SentCLEME weights (DEFAULT_CONFIG_SENTENCE_DEPENDENT / _INDEPENDENT).
SENTENCE_WEIGHTS = {
    "dependent": dict(tp_alpha=10.0, tp_min=1.0, tp_max=10.0, fp_alpha=10.0, fp_min=0.25, fp_max=1.0,
                      fn_alpha=10.0, fn_min=1.0, fn_max=1.0),
    "independent": dict(tp_alpha=10.0, tp_min=2.5, tp_max=10.0, fp_alpha=10.0, fp_min=0.25, fp_max=1.0,
                        fn_alpha=10.0, fn_min=1.0, fn_max=1.0),
}


def _cleme_dir() -> Path:
    """``cleme/`` of the data directory (``$GEC_META_DATA``, else the checkout's ``data/``: both
    filled by ``make data``), else of the shared mirror next to the checkout."""
    env = os.environ.get("GEC_META_DATA")
    roots = ([Path(env)] if env else []) + [REPO / "data", REPO.parent / "shared" / "data"]
    for root in roots:
        if (root / "cleme" / "conll14.errant").is_file():
            return root / "cleme"
    pytest.skip("CLEME's example M2 files (cleme/ of the data directory, from THUKElab/CLEME v1.0 "
                "tests/examples) not found: run `make data`")


def _sources(tmp_path: Path, m2: Path) -> Path:
    """The S lines of an M2 file as a --src file."""
    src = tmp_path / f"{m2.stem}.src"
    src.write_text("".join(line[2:] for line in m2.read_text(encoding="utf-8").splitlines(True)
                           if line.startswith("S ")), encoding="utf-8")
    return src


def _corpus_values(metric: CLEME, stats: np.ndarray) -> dict:
    """CLEME's corpus output: P, R, F, Acc rounded to 4 decimals, counts to 2."""
    counts = metric.corpus_stats(stats)[0]
    p, r, f, acc = metric.prfa(counts)
    return {"F": float(f), "Acc": float(acc), "P": float(p), "R": float(r),
            **{k: round(float(c), 2) for k, c in zip(("tp", "fp", "fn", "tn"), counts)}}


def test_make_data_installs_the_cleme_files():
    """``make data`` (gec_meta/data/manifest.tsv) fills ``cleme/`` with CLEME v1.0's
    ``tests/examples/`` (tag v1.0 = commit 5fc7617ef36c), files unchanged."""
    from gec_meta.data.fetch import load_manifest

    cleme = {e.path: e for e in load_manifest() if e.path.startswith("cleme/")}
    names = {f"conll14-{s}.errant" for s in OFFICIAL["corpus/dependent"]}
    assert set(cleme) == {f"cleme/{n}" for n in names | {"conll14.errant", "demo.errant", "demo-AMU.errant"}}
    for path, entry in cleme.items():
        assert entry.github_parts() == ("THUKElab/CLEME", "5fc7617ef36c2134ae217f449e2a927e41f77039",
                                        "tests/examples/" + path.removeprefix("cleme/"))


# --------------------------------------------------------------------- published outputs
@pytest.mark.slow
@pytest.mark.ci
def test_published_corpus_dependent_amu(tmp_path, capsys):
    """CLEME README: ``python scripts/evaluate.py --ref tests/examples/conll14.errant --hyp
    tests/examples/conll14-AMU.errant`` (corpus level, dependent) prints
    {'F': 0.2514, 'Acc': 0.7634, 'P': 0.2645, 'R': 0.2097, 'tp': 313.51, 'fp': 871.8,
    'fn': 1181.71, 'tn': 6312.0}.  The issue's command with CLEME's own setting, the metric
    config ``cleme_dependent_corpus``, and no ``-m`` option."""
    d = _cleme_dir()
    src = _sources(tmp_path, d / "conll14.errant")
    assert main(["score", "--src", str(src), "--hyp-m2", str(d / "conll14-AMU.errant"),
                 "--ref", str(d / "conll14.errant"), "--metric", "cleme_dependent_corpus", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "hyp_edits=m2" in out["metric"] and "reference_edits=gold" in out["metric"]
    assert "level=corpus" in out["metric"] and "mode=dependent" in out["metric"]
    amu = out["systems"]["conll14-AMU"]
    assert amu["default"] == 0.2514
    assert round(amu["precision"], 4) == 0.2645 and round(amu["recall"], 4) == 0.2097

    sources = src.read_text(encoding="utf-8").splitlines()
    refs = read_references([str(d / "conll14.errant")], sources).for_metric("m2")
    hyp = read_hypothesis_m2(d / "conll14-AMU.errant", sources)
    metric = CLEME(mode="dependent", level="corpus", reference_edits="gold", **CORPUS_WEIGHTS)
    assert _corpus_values(metric, metric.statistics(sources, [hyp], refs)) == {
        "F": 0.2514, "Acc": 0.7634, "P": 0.2645, "R": 0.2097,
        "tp": 313.51, "fp": 871.8, "fn": 1181.71, "tn": 6312.0}


def test_corpus_configs_are_clemes_own_defaults():
    """``cleme_{dependent,independent}_corpus`` = CLEME v1.0's ``scripts/evaluate.py`` defaults
    (CORPUS_WEIGHTS above, from its ``cleme/constants.py``; FP reversed in every CLEME weight);
    ``cleme_dependent`` keeps the UOT-ERRANT weights (the published SentCLEME numbers)."""
    from gec_meta.api import load_metric

    for mode in ("dependent", "independent"):
        assert load_metric(f"cleme_{mode}_corpus") == CLEME(mode=mode, level="corpus", **CORPUS_WEIGHTS)
        assert load_metric(f"cleme_{mode}") == CLEME(mode=mode)
    fp = load_metric("cleme_dependent_corpus").weights[1]
    assert fp.reverse and (fp.alpha, fp.min_value, fp.max_value) == (2.0, 0.75, 1.25)


def test_published_demo(tmp_path):
    """``scripts/evaluate.py --ref tests/examples/demo.errant --hyp tests/examples/demo-AMU.errant``
    prints {'F': 0.2711, 'Acc': 0.8002, 'P': 0.2293, 'R': 1.0, 'tp': 0.8, 'fp': 2.7, 'fn': 0,
    'tn': 10.0} (its docstring; bias 1.4 in its log)."""
    d = _cleme_dir()
    sources = _sources(tmp_path, d / "demo.errant").read_text(encoding="utf-8").splitlines()
    refs = read_references([str(d / "demo.errant")], sources).for_metric("m2")
    hyp = read_hypothesis_m2(d / "demo-AMU.errant", sources)
    metric = CLEME(mode="dependent", level="corpus", reference_edits="gold", **CORPUS_WEIGHTS)
    assert _corpus_values(metric, metric.statistics(sources, [hyp], refs)) == {
        "F": 0.2711, "Acc": 0.8002, "P": 0.2293, "R": 1.0, "tp": 0.8, "fp": 2.7, "fn": 0.0, "tn": 10.0}


# --------------------------------------------------------------------- the official code
#: Output of CLEME v1.0 (commit 5fc7617) on every CoNLL-2014 system of its examples, run in a
#: scratch venv (numpy, tabulate): for corpus level ``scripts/evaluate.py --ref conll14.errant
#: --hyp conll14-<SYS>.errant --scorer dependent|independent`` -> (F, Acc, P, R, tp, fp, fn, tn);
#: for sentence level ``--level sentence`` -> (F, P, R, Acc).
OFFICIAL = {
    "corpus/dependent": {
        "AMU": (0.2514, 0.7634, 0.2645, 0.2097, 313.51, 871.8, 1181.71, 6312.0),
        "CAMB": (0.269, 0.7416, 0.2574, 0.3284, 482.48, 1392.25, 986.82, 6347.0),
        "CUUI": (0.2631, 0.7504, 0.2681, 0.2448, 378.94, 1034.47, 1169.22, 6245.0),
        "IITB": (0.0445, 0.7946, 0.1929, 0.0109, 17.26, 72.19, 1563.88, 6313.0),
        "INPUT": (0.0, 0.7984, 1.0, 0.0, 0.0, 0.0, 1592.33, 6308.0),
        "IPN": (0.0441, 0.7655, 0.0585, 0.0222, 32.84, 528.7, 1445.05, 6412.0),
        "NTHU": (0.2069, 0.7518, 0.2142, 0.1823, 265.61, 974.54, 1191.48, 6295.0),
        "PKU": (0.1824, 0.7618, 0.2006, 0.1339, 194.61, 775.76, 1259.14, 6314.0),
        "POST": (0.2131, 0.7383, 0.2107, 0.2231, 332.52, 1245.67, 1157.97, 6449.0),
        "RAC": (0.1872, 0.7597, 0.206, 0.1371, 203.0, 782.4, 1278.04, 6310.0),
        "SJTU": (0.115, 0.7838, 0.1902, 0.0445, 68.58, 292.01, 1470.84, 6324.0),
        "UFC": (0.0685, 0.7974, 0.564, 0.0152, 24.38, 18.84, 1582.68, 6280.0),
        "UMC": (0.1865, 0.7574, 0.2014, 0.144, 212.96, 844.41, 1266.28, 6377.0),
    },
    "corpus/independent": {
        "AMU": (0.2661, 0.795, 0.269, 0.2553, 318.01, 864.3, 927.54, 6629.0),
        "CAMB": (0.2816, 0.7753, 0.2611, 0.4106, 488.48, 1382.25, 701.15, 6701.0),
        "CUUI": (0.2838, 0.7863, 0.2785, 0.3071, 391.97, 1015.5, 884.49, 6597.0),
        "IITB": (0.0497, 0.8211, 0.1929, 0.0125, 17.26, 72.19, 1362.05, 6567.0),
        "INPUT": (0.0, 0.8248, 1.0, 0.0, 0.0, 0.0, 1393.11, 6560.0),
        "IPN": (0.0466, 0.7905, 0.0585, 0.0257, 32.84, 528.7, 1246.0, 6664.0),
        "NTHU": (0.221, 0.7837, 0.22, 0.2252, 272.26, 965.2, 936.65, 6617.0),
        "PKU": (0.1924, 0.7913, 0.2023, 0.161, 196.11, 773.26, 1021.93, 6611.0),
        "POST": (0.2251, 0.771, 0.215, 0.2772, 338.52, 1235.67, 882.66, 6793.0),
        "RAC": (0.1971, 0.7909, 0.2069, 0.1659, 203.75, 781.15, 1024.61, 6628.0),
        "SJTU": (0.1235, 0.8102, 0.1902, 0.0514, 68.58, 292.01, 1266.19, 6583.0),
        "UFC": (0.0777, 0.8252, 0.564, 0.0175, 24.38, 18.84, 1372.47, 6546.0),
        "UMC": (0.1954, 0.7867, 0.2022, 0.1723, 213.71, 843.16, 1026.49, 6680.0),
    },
    "sentence/dependent": {
        "AMU": (0.3624, 0.6305, 0.4887, 0.7568), "CAMB": (0.3294, 0.4107, 0.5994, 0.7552),
        "CUUI": (0.3739, 0.576, 0.5121, 0.7569), "IITB": (0.3151, 0.9527, 0.3237, 0.7292),
        "INPUT": (0.3133, 1.0, 0.3133, 0.7276), "IPN": (0.2325, 0.6745, 0.3607, 0.7153),
        "NTHU": (0.3224, 0.5517, 0.4971, 0.7447), "PKU": (0.3256, 0.6362, 0.4484, 0.7459),
        "POST": (0.3334, 0.5326, 0.5061, 0.7478), "RAC": (0.3237, 0.6505, 0.4457, 0.7477),
        "SJTU": (0.3193, 0.829, 0.3606, 0.7352), "UFC": (0.323, 0.987, 0.3215, 0.73),
        "UMC": (0.3146, 0.6178, 0.4443, 0.7421),
    },
    "sentence/independent": {
        "AMU": (0.42, 0.6536, 0.572, 0.8292), "CAMB": (0.3963, 0.4539, 0.7015, 0.815),
        "CUUI": (0.4376, 0.6092, 0.6076, 0.8257), "IITB": (0.3549, 0.9527, 0.3687, 0.8319),
        "INPUT": (0.3529, 1.0, 0.3529, 0.8333), "IPN": (0.259, 0.6751, 0.4056, 0.8059),
        "NTHU": (0.3813, 0.5744, 0.5808, 0.8163), "PKU": (0.3743, 0.6503, 0.522, 0.8238),
        "POST": (0.3938, 0.5626, 0.5983, 0.8148), "RAC": (0.3704, 0.6665, 0.5214, 0.8257),
        "SJTU": (0.3625, 0.8317, 0.4131, 0.8288), "UFC": (0.3648, 0.987, 0.3659, 0.8344),
        "UMC": (0.3659, 0.6336, 0.5194, 0.8192),
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("setting", sorted(OFFICIAL))
def test_official_code_on_every_conll14_system(tmp_path, setting):
    """All 13 systems x {corpus, sentence} x {dependent, independent} equal the official code's
    output at its printed precision, with ``empty_hypothesis=cleme`` (POST's empty sentence 24:
    CLEME drops the empty hypothesis and scores annotator 0's unchanged '"' in its place)."""
    level, mode = setting.split("/")
    d = _cleme_dir()
    sources = _sources(tmp_path, d / "conll14.errant").read_text(encoding="utf-8").splitlines()
    refs = read_references([str(d / "conll14.errant")], sources).for_metric("m2")
    systems = sorted(OFFICIAL[setting])
    hyps = [read_hypothesis_m2(d / f"conll14-{s}.errant", sources) for s in systems]
    weights = CORPUS_WEIGHTS if level == "corpus" else SENTENCE_WEIGHTS[mode]
    metric = CLEME(mode=mode, level=level, reference_edits="gold", empty_hypothesis="cleme", **weights)
    stats = metric.statistics(sources, hyps, refs)
    for k, name in enumerate(systems):
        if level == "corpus":
            got = tuple(_corpus_values(metric, stats[k:k + 1]).values())
        else:
            best = metric.best_reference(stats[k:k + 1])
            chosen = np.take_along_axis(stats[k:k + 1], best[:, :, None, None], axis=2)[:, :, 0, :]
            p, r, f, acc = metric.prfa(chosen)
            # the official prints round(np.average(x), 4): numpy's rounding of an np.float64
            got = tuple(float(np.round(x.mean(), 4)) for x in (f, p, r, acc))
        assert got == OFFICIAL[setting][name], name


# --------------------------------------------------------------------- by hand
def _gold(start, end, cor, line=0, annotator=0, etype="R:X"):
    return GoldEdit(start, end, etype, (cor,), annotator, line)


def test_gold_spans_by_hand():
    # "a b c d": delete b (offset -1), then c d -> C (target [1, 2)), then insert x at 4
    # (target 4 - 2 = 2); a noop is dropped.
    edits = (_gold(1, 2, ""), _gold(2, 4, "C"), GoldEdit(-1, -1, "noop", ("",), 0), _gold(4, 4, "x"))
    assert gold_spans(edits) == [(1, 2, 1, 1), (2, 4, 1, 2), (4, 4, 2, 3)]


def test_cleme_kept_by_hand():
    # CLEME's loop deletes while iterating: after deleting index 1 ("") the next examined
    # position is 2, i.e. the old index 3, so the second "" (old index 2) is kept.
    assert cleme_kept(["h", "", "", "r"]) == [0, 2, 3]
    assert cleme_kept(["", "r0", "r1"]) == [1, 2]  # an empty hypothesis is dropped too
    assert cleme_kept(["h", ""]) == [0, 1]  # one reference: nothing is dropped


def test_given_edits_decide_the_chunks():
    """Same text, other edits, other counts.  Source "a b c d", reference b -> B (gold).

    hyp2 = edits b -> B and d -> D: chunks a | b | c | d; B = B is a TP, D (edited) vs d an FP,
    a and c TN.  Bias = mean length of the reference's edited chunks = 1, so every weight is
    alpha / (1 + (alpha - 1)) = 1 before clipping: TP -> 2.5 (tp_min), FP -> 1.  (2.5, 1, 0, 2).
    hyp1 = one edit b c d -> "B c D": chunks a | b c d; "B c D" vs the reference's "B c d": FP
    of length 3, bias 3 (the reference's chunk is now b c d), weight 1.  (0, 1, 0, 1).
    """
    source = "a b c d"
    refs = (((_gold(1, 2, "B"),),),)  # shape (R, N) = (1, 1) of edit tuples
    hyp1 = EditedSentence("a B c D", (_gold(1, 4, "B c D"),))
    hyp2 = EditedSentence("a B c D", (_gold(1, 2, "B"), _gold(3, 4, "D")))
    metric = CLEME(mode="dependent", reference_edits="gold")
    stats = metric.statistics([source], [[hyp1], [hyp2]], refs)
    np.testing.assert_allclose(stats[:, 0, 0], [[0, 1, 0, 1], [2.5, 1, 0, 2]])
    # the per-system cache is keyed by the text: the bound metric's key carries the edits
    b1, b2 = metric.bind([source], [[hyp1]], refs), metric.bind([source], [[hyp2]], refs)
    assert b1.cache_key() != b2.cache_key() != metric.cache_key()
    assert b1.signature() == b2.signature() and "hyp_edits=m2" in b1.signature()
    assert metric.bind([source], [["a B c D"]], refs) is metric  # plain text: no change
    assert hypothesis_edits_digest([["a B c D"]]) == "" and given_edits([hyp1]) == (hyp1.edits,)
    assert "reference_edits" not in CLEME().signature() and "empty_hypothesis" not in CLEME().signature()


def test_edited_sentence_is_its_text_and_pickles():
    s = EditedSentence("a B", (_gold(1, 2, "B"),))
    assert s == "a B" and s.split() == ["a", "B"]
    back = pickle.loads(pickle.dumps(s))
    assert back == "a B" and back.edits == s.edits


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_read_hypothesis_m2_checks_name_file_and_line(tmp_path):
    sources = ["a b c", "d e"]
    ok = _write(tmp_path / "sys.errant", "S a b c\nA 1 2|||R:X|||B|||REQUIRED|||-NONE-|||0\n\n"
                                        "S d e\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n")
    hyp = read_hypothesis_m2(ok, sources)
    assert list(hyp) == ["a B c", "d e"] and [len(h.edits) for h in hyp] == [1, 0]
    two = _write(tmp_path / "two.errant", "S a b c\nA 1 2|||R:X|||B|||REQUIRED|||-NONE-|||0\n"
                                          "A 0 1|||R:X|||A|||REQUIRED|||-NONE-|||1\n\nS d e\n\n")
    with pytest.raises(DataError, match=r"two\.errant:3: .*one annotator"):
        read_hypothesis_m2(two, sources)
    overlap = _write(tmp_path / "ov.errant", "S a b c\nA 0 2|||R:X|||x|||REQUIRED|||-NONE-|||0\n"
                                             "A 1 2|||R:X|||y|||REQUIRED|||-NONE-|||0\n\nS d e\n\n")
    with pytest.raises(DataError, match=r"ov\.errant:3: .*starts before"):
        read_hypothesis_m2(overlap, sources)
    other = _write(tmp_path / "other.errant", "S a b c\n\nS d f\n\n")
    with pytest.raises(DataError, match=r"other\.errant:3: .*not the source sentence 2"):
        read_hypothesis_m2(other, sources)
    with pytest.raises(DataError, match=r"other\.errant.*has 2 sentences, the source has 3"):
        read_hypothesis_m2(other, sources + ["g"])


def test_reference_format_by_name(tmp_path):
    """The format follows the file name (*.m2, *.errant: M2); a file whose name and start
    disagree is an error unless --ref-format says which (tests/test_inputs.py has the rest)."""
    assert reference_format(_write(tmp_path / "r.errant", "S a b\nA 0 1|||R:X|||A|||REQUIRED|||-NONE-|||0\n\n")) == "m2"
    with pytest.raises(DataError, match=r"r2\.txt:1: starts like an M2 file .* --ref-format m2"):
        reference_format(_write(tmp_path / "r2.txt", "S a b\n\nS c\n\n"))
    assert reference_format(tmp_path / "r2.txt", "m2") == "m2"
    assert reference_format(tmp_path / "missing.m2") == "m2"
    assert reference_format(_write(tmp_path / "t.txt", "S & P rose .\nA man came .\n")) == "text"
    assert reference_format(tmp_path / "missing.txt") == "text"


def test_cli_hyp_m2_next_to_hyp(tmp_path, capsys):
    """Two systems, one as text and one as M2 edits, against an M2 reference (gold b -> B).

    Hand calculation (defaults: SentCLEME-dependent, UOT-ERRANT weights; one sentence):
    "a B c" has one edited chunk, B = B: TP weight 2.5 (tp_min: the length 1 equals the bias 1),
    FP 0, FN 0 -> P = R = F = 1.  "a b c" (text) edits nothing: the b chunk is an FN of weight 1
    (FN alpha 2 at l = c), TP 0 -> P = 1 (no proposal), R = 0, F = 0."""
    src = _write(tmp_path / "src.txt", "a b c\n")
    ref = _write(tmp_path / "ref.errant", "S a b c\nA 1 2|||R:X|||B|||REQUIRED|||-NONE-|||0\n\n")
    hyp_txt = _write(tmp_path / "plain.txt", "a b c\n")
    hyp_m2 = _write(tmp_path / "edits.errant", "S a b c\nA 1 2|||R:X|||B|||REQUIRED|||-NONE-|||0\n\n")
    assert main(["score", "--src", str(src), "--hyp", str(hyp_txt), "--hyp-m2", str(hyp_m2),
                 "--ref", str(ref), "--metric", "cleme_dependent", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ranking"] == ["edits", "plain"]
    assert out["systems"]["edits"]["default"] == 1.0 and out["systems"]["plain"]["default"] == 0.0
    assert "reference_edits=gold" in out["metric"] and "hyp_edits=m2" in out["metric"]
    # without --hyp-m2 nothing changes: extracted edits, no new signature fields
    assert main(["score", "--src", str(src), "--hyp", str(hyp_txt), "--ref", str(ref),
                 "--metric", "cleme_dependent", "--json"]) == 0
    sig = json.loads(capsys.readouterr().out)["metric"]
    assert "reference_edits" not in sig and "hyp_edits" not in sig


def test_cli_needs_some_system(tmp_path, capsys):
    src = _write(tmp_path / "src.txt", "a b c\n")
    assert main(["score", "--src", str(src), "--ref", str(src), "--metric", "cleme_dependent"]) == 2
    assert "--hyp-m2" in capsys.readouterr().err


def test_options_from_configs_and_their_errors():
    from gec_meta.api import load_metric
    from gec_meta.errors import ConfigError

    metric = load_metric("cleme_dependent", reference_edits="gold", empty_hypothesis="cleme")
    assert metric.reference_kind == "m2" and CLEME().reference_kind == "text"
    assert "reference_edits=gold" in metric.signature() and "empty_hypothesis=cleme" in metric.signature()
    with pytest.raises(ConfigError, match="metric.reference_edits"):
        CLEME(reference_edits="m2")
    with pytest.raises(ConfigError, match="metric.empty_hypothesis"):
        CLEME(empty_hypothesis="drop")
