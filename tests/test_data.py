"""Loading the real benchmarks, human scores derived from judgments, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from gec_meta.meta.aggregation import Default
from gec_meta.data.datasets import load_gjg15, load_seeda
from gec_meta.data.io import read_lines
from gec_meta.data.judgments import read_judgments
from gec_meta.data import m2 as m2_module
from gec_meta.data.m2 import annotator_references, parse_m2, read_m2
from gec_meta.data.refsets import load_refset
from gec_meta.errors import ConfigError, DataError, InputWarning, MissingDataError
from gec_meta.meta.task import Task
from gec_meta.meta.evaluation import human_expected_wins
from gec_meta.metrics.length import Length


def test_gjg15_expected_wins_from_judgments_reproduce_table3(data_root):
    ds = load_gjg15(data_root)
    ew = human_expected_wins(ds.judgments["ranking"], ds.systems)
    # GJG15 Table 3(b) EW, 3 decimals, all 13 systems (the human scores in the TSV).
    np.testing.assert_array_equal(np.round(ew, 3), ds.human["EW"])


def test_seeda_expected_wins_from_judgments(data_root):
    ds = load_seeda(data_root, "all")
    for aspect in ("edit", "sent"):
        ew = human_expected_wins(ds.judgments[aspect], ds.systems)
        np.testing.assert_allclose(ew, ds.human[f"EW_{aspect}"], atol=1e-3)


def test_seeda_shapes_and_settings(data_root):
    base = load_seeda(data_root, "base")
    flu = load_seeda(data_root, "fluency")
    assert base.num_systems == 12 and flu.num_systems == 14 and base.num_sentences == 391
    assert {"INPUT", "REF-F", "GPT-3.5"}.isdisjoint(base.systems)
    assert "GPT-3.5" in flu.systems and "INPUT" not in flu.systems
    assert len(base.judgments["edit"]) == 600
    # subset line i = CoNLL line corpus_lines[i]; the subset INPUT equals the CoNLL source there.
    src = read_lines(data_root / "conll14" / "conll14st-test.tok.src")
    assert all(src[l] == s for l, s in zip(base.corpus_lines, base.sources))


def test_length_metric_reproduces_gec_metrics_seeda(data_root):
    # gec-metrics' own tests (meta_eval/seeda_test.py) with the same toy metric.
    res = Task(load_seeda(data_root, "base"), Length(), Default()).run()
    expected = {"EW_edit": (0.42736690406501093, 0.4545454545454546),
                "EW_sent": (0.4532076150049142, 0.5454545454545455),
                "TS_edit": (0.4834645229702062, 0.5944055944055945),
                "TS_sent": (0.4880423593992749, 0.5524475524475525)}
    for name, (r, rho) in expected.items():
        assert res.system[name]["pearson"] == pytest.approx(r, rel=1e-6)
        assert res.system[name]["spearman"] == pytest.approx(rho, rel=1e-6)
    assert res.sentence["edit"]["accuracy"] == pytest.approx(0.5365853658536586, rel=1e-6)
    assert res.sentence["edit"]["kendall"] == pytest.approx(0.07317073170731707, rel=1e-6)
    assert res.sentence["sent"]["accuracy"] == pytest.approx(0.5455708346658139, rel=1e-6)
    assert res.sentence["sent"]["kendall"] == pytest.approx(0.09114166933162776, rel=1e-6)


def test_length_metric_reproduces_gec_metrics_gjg15(data_root):
    # gec-metrics reads files with rstrip only; NTHU has 3 lines with a leading space.
    res = Task(load_gjg15(data_root, whitespace="rstrip"), Length(), Default()).run()
    assert res.system["EW"]["pearson"] == pytest.approx(-0.175093788793105, rel=1e-6)
    assert res.system["EW"]["spearman"] == pytest.approx(-0.016483516483516484, rel=1e-6)
    assert res.system["TS"]["pearson"] == pytest.approx(-0.2232996476764572, rel=1e-6)
    assert res.system["TS"]["spearman"] == pytest.approx(-0.06043956043956044, rel=1e-6)
    # With whitespace normalised (the default) the 3 lines lose a character each.
    norm = Task(load_gjg15(data_root), Length(), Default()).run()
    assert norm.system["EW"]["pearson"] != pytest.approx(-0.175093788793105, rel=1e-6)


def test_official_references_from_m2(data_root):
    ds = load_gjg15(data_root)
    src = load_refset("official", ds, data_root, "source")
    ann0 = load_refset("official", ds, data_root, "annotator0")
    trg0 = read_lines(data_root / "conll14" / "refs" / "conll14st-test.tok.trg0")
    # The README: trg0 differs from the exact application of annotator 0's edits on 11 lines.
    assert sum(a != b for a, b in zip(src.texts[0], trg0)) == 11
    # 88 sentences have no annotator-1 line: source vs annotator 0's correction.
    differ = sum(a != b for a, b in zip(src.texts[1], ann0.texts[1]))
    assert 0 < differ <= 88
    assert src.signature() != ann0.signature()


def test_bn10_references_reproduce_plain_text_files(data_root):
    ds = load_gjg15(data_root)
    refs = load_refset("bn10", ds, data_root)
    path = data_root / "bn10gec" / "BN.m2"
    # BN's text files apply every A line, the two repeated ones (lines 11692, 29256) twice ...
    sentences = parse_m2((data_root / "bn10gec" / "BN.m2").read_text(encoding="utf-8"))
    assert annotator_references(sentences, tuple(range(10)), "source") == refs.texts
    # ... where read_m2 counts an annotator's repeated edit once (its gold edits are a set).
    m2_module._DUPLICATES_REPORTED.clear()  # warned once per file and process
    with pytest.warns(InputWarning, match=r"BN\.m2:11692: repeats the edit of line 11691 .*2 repeated edit"):
        deduped = annotator_references(read_m2(path), tuple(range(10)), "source")
    differ = {(r, n) for r in range(10) for n in range(1312) if deduped[r][n] != refs.texts[r][n]}
    assert {r for r, _ in differ} <= {0, 4} and 1 <= len(differ) <= 2


# --------------------------------------------------------------------------- bad input

def test_mismatched_line_count_names_file(tmp_path):
    p = tmp_path / "sys.txt"
    p.write_text("a\nb\n")
    with pytest.raises(DataError, match="sys.txt: has 2 lines, expected 3"):
        read_lines(p, expected=3)


def test_crlf_and_trailing_whitespace_normalised(tmp_path):
    p = tmp_path / "x"
    p.write_bytes(b"a  b \r\nc\t d\r\n")
    assert read_lines(p) == ("a b", "c d")


def test_non_utf8_names_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"ok\nalso ok\nbad \xff byte\n")
    with pytest.raises(DataError, match=r"bad.txt:3: not valid UTF-8"):
        read_lines(p)


def test_missing_data_directory(tmp_path):
    with pytest.raises(MissingDataError, match="make data"):
        load_seeda(tmp_path)


def test_unknown_setting_and_system(data_root):
    with pytest.raises(ConfigError, match="dataset.setting='basic'"):
        load_seeda(data_root, "basic")
    with pytest.raises(ConfigError, match="unknown system"):
        load_seeda(data_root, "base").select(["BART", "NoSuchSystem"])


def test_malformed_xml_names_file_and_line(tmp_path):
    p = tmp_path / "j.xml"
    p.write_text("<set>\n<ranking-item src-id='1'>\n<translation rank='1' system='A'>\n</set>\n")
    with pytest.raises(DataError, match=r"j.xml:\d+: malformed XML"):
        read_judgments(p, index_base=0)


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("S a b c\nA 0 1|||R|||x|||REQUIRED|||-NONE-\n", 2, "expected 6"),
        ("S a b c\nA 0 9|||R|||x|||REQUIRED|||-NONE-|||0\n", 2, "outside the source"),
        ("S a b c\nA x 1|||R|||x|||REQUIRED|||-NONE-|||0\n", 2, "non-integer"),
        ("S a b\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\nS c d\n", 3, "without a blank"),
        ("S a b\n\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n", 3, "outside a block"),
        ("S a b\nB 0 1\n", 2, "neither"),
    ],
)
def test_malformed_m2_names_line(text, line, message):
    with pytest.raises(DataError, match=rf"f.m2:{line}: .*{message}"):
        parse_m2(text, "f.m2")


def test_text_only_refset_gives_m2_metrics_errant_gold_edits(data_root):
    """Sakaguchi sets have no usable M2: M2 metrics get ERRANT's edits, and applying them to the
    source rebuilds each reference exactly."""
    from gec_meta.data.datasets import load_dataset
    from gec_meta.data.refsets import extracted_gold_edits, load_refset

    ds = load_dataset("seeda", data_root, setting="base")
    refs = load_refset("ne_minimal", ds, data_root)
    assert refs.gold is None and "gold_edits=errant" in refs.signature()
    sources, texts = ds.sources[:25], [t[:25] for t in refs.texts]
    gold = extracted_gold_edits(sources, texts)
    for r, col in enumerate(gold):
        for n, edits in enumerate(col):
            toks = sources[n].split()
            for g in sorted(edits, key=lambda g: (g.start, g.end), reverse=True):
                toks[g.start:g.end] = g.corrections[0].split()
            assert " ".join(toks) == texts[r][n]
