"""Östling et al. (LREC-COLING 2024), ``dataset=ostling2024``, and the language-independent edit
extraction (``gec_meta.edits.generic``).

Expected values: the paper's Table 4 as written in the source repository
(robertostling/gec-evaluation @ 5ac8180, ``evaluation/correlation_analysis.py``, ``human_scores``:
two decimals, the second always 0), counts made with grep on the json files, and edits worked
out by hand from the alignment costs (comments).
"""

from __future__ import annotations

import numpy as np
import pytest

from gec_meta.data.datasets import load_dataset
from gec_meta.data.swedish import OSTLING_SYSTEMS, text_mismatches
from gec_meta.edits.generic import GenericExtractor, generic_edits, generic_extractor, is_punct
from gec_meta.errors import ConfigError, DataError, MissingDataError

# Table 4: aspect -> system (granska, mt, s2 = GPT-3, mm = human fluent, mw = human free) -> All, A, B, C.
TABLE4 = {
    "grammaticality": {"granska": (3.0, 3.1, 2.5, 3.3), "mt": (3.3, 3.4, 3.0, 3.5), "s2": (3.7, 3.8, 3.6, 3.8),
                       "mm": (3.9, 3.9, 3.8, 3.9), "mw": (3.9, 3.9, 3.9, 3.8)},
    "fluency": {"granska": (2.8, 3.0, 2.3, 3.2), "mt": (3.1, 3.2, 2.7, 3.3), "s2": (3.6, 3.7, 3.4, 3.7),
                "mm": (3.8, 3.8, 3.7, 3.8), "mw": (3.8, 3.8, 3.9, 3.8)},
    "meaning": {"granska": (3.5, 3.5, 3.2, 3.7), "mt": (3.4, 3.5, 3.1, 3.6), "s2": (3.4, 3.6, 3.1, 3.6),
                "mm": (3.9, 4.0, 3.9, 3.8), "mw": (3.8, 3.8, 3.8, 3.8)},
}
LEVELS = ("all", "A", "B", "C")


@pytest.fixture(scope="module")
def root(data_root):
    if not (data_root / "ostling" / "annotations").is_dir():
        pytest.skip(f"no ostling/ in {data_root}")
    return data_root


@pytest.mark.parametrize("k,level", list(enumerate(LEVELS)))
def test_table4_means(root, k, level):
    ds = load_dataset("ostling2024", root, level=level)
    for aspect, rows in TABLE4.items():
        for i, system in enumerate(ds.systems):
            # Table 4 prints one decimal ("%.1f" of analyze_annotations.py).
            assert f"{ds.human[aspect][i]:.1f}" == f"{rows[system][k]:.1f}", (aspect, system, level)


def test_counts_and_shapes(root):
    ds = load_dataset("ostling2024", root)
    assert ds.num_sentences == 3 * 64 and ds.systems == OSTLING_SYSTEMS and ds.language == "sv"
    assert ds.segment_scores["meaning"].shape == (5, 192)
    # grep -c '"Meaning Preservation": 0' balanced_{A,B,C}/katarina.json: 5, 11, 0 ("other").
    per_level = [int(np.isnan(ds.segment_scores["meaning"][:, 64 * j:64 * (j + 1)]).sum()) for j in range(3)]
    assert per_level == [5, 11, 0]
    # Granska's meaning: 8 "other" in B (1 in A) -> 192 - 9 rated.
    assert int((~np.isnan(ds.segment_scores["meaning"][0])).sum()) == 183
    # Sentence 1 of level A in the files: the json's first item (same source line).
    assert ds.sources[0].startswith("Jag kännade att jag tycker om henne")
    assert ds.references[0][0].startswith("Jag kände att jag tyckte om henne ,")
    assert ds.signature() == "ostling2024(annotator=katarina,lang=sv,setting=all,unicode=nfc+cf)"


def test_rated_text_vs_files(root):
    # GPT-3's files are untokenised ("Nu saknar jag den." vs rated "Nu saknar jag den ."): line 2 of A.
    mism = text_mismatches(root, "A")
    assert 2 in mism["s2"] and mism["orig.txt"] == [] and mism["corr.txt"] == [] and mism["granska"] == []
    rated = load_dataset("ostling2024", root, level="A")
    files = load_dataset("ostling2024", root, level="A", text="files")
    assert rated.hypotheses[2][1] == "Nu saknar jag den ." and files.hypotheses[2][1] == "Nu saknar jag den."
    assert "text=files" in files.signature()


def test_bad_values(root, tmp_path):
    with pytest.raises(ConfigError, match="dataset.level='xx'"):
        load_dataset("ostling2024", root, level="xx")
    with pytest.raises(ConfigError, match="dataset.text"):
        load_dataset("ostling2024", root, text="both")
    with pytest.raises(MissingDataError, match="ostling"):
        load_dataset("ostling2024", tmp_path)
    # A missing file names it.
    import shutil
    shutil.copytree(root / "ostling", tmp_path / "ostling")
    (tmp_path / "ostling/data/balanced_test/Nyberg.CEFR_B.balanced_test.corr.txt").unlink()
    with pytest.raises(MissingDataError, match="CEFR_B.balanced_test.corr.txt"):
        load_dataset("ostling2024", tmp_path)
    (tmp_path / "ostling/annotations/balanced_A/katarina.json").write_text('{"data": [{"original": "x"}]}')
    with pytest.raises(DataError, match="katarina.json.*item 0"):
        load_dataset("ostling2024", tmp_path, level="A")


def test_gleu_green_end_to_end(root):
    from gec_meta.api import load_metric, meta_evaluate

    ds = load_dataset("ostling2024", root, level="A")
    for name in ("gleu", "green"):
        res = meta_evaluate(ds, load_metric(name), root=root, spa_permutations=0)
        assert set(res.system) == {"grammaticality", "fluency", "meaning"}
        assert "lang=sv" in res.signature
        assert {"acc_eq", "pdp"} <= set(res.sentence["fluency"])


# ----------------------------------------------------------------- generic edit extraction

def test_generic_hand_cases():
    # Identical texts: no edit.
    assert generic_edits("Det är bra .", "Det är bra .") == ()
    # One deletion (cost 1; any substitution path costs more).
    assert generic_edits("a b c", "a c") == ((1, 2, 1, 1, "b", "", "U:OTHER"),)
    # Two insertions in a row: ERRANT merges runs of insertions only.
    assert generic_edits("a b c", "a x y b c") == ((1, 1, 1, 3, "", "x y", "M:OTHER"),)
    # Case only: substitution cost 0 (equal lower-cased), still an edit.
    assert generic_edits("hon är glad", "Hon är glad") == ((0, 1, 0, 1, "hon", "Hon", "R:OTHER"),)
    # Two substitutions separated by matches stay two edits.
    assert generic_edits("Jag känner att jag tycker om henne", "Jag kände att jag tyckte om henne") == (
        (1, 2, 1, 2, "känner", "kände", "R:OTHER"), (4, 5, 4, 5, "tycker", "tyckte", "R:OTHER"))
    # Word order: one transposition (cost 2 = k; two substitutions would cost 2 x 1.0, and the
    # transposition comes first in ERRANT's tie order).
    assert generic_edits("det var en gång", "var det en gång") == ((0, 2, 0, 2, "det var", "var det", "R:OTHER"),)
    # Equal up to spaces and hyphens: one edit.
    assert generic_edits("ett e - post", "ett epost") == ((1, 4, 1, 2, "e - post", "epost", "R:OTHER"),)
    # Case change after punctuation merges with it: [, men -> . Men].
    assert generic_edits("röd , men", "röd . Men") == ((1, 3, 1, 3, ", men", ". Men", "R:OTHER"),)
    # Two adjacent substitutions of dissimilar words split.
    assert generic_edits("A B", "C D") == ((0, 1, 0, 1, "A", "C", "R:OTHER"), (1, 2, 1, 2, "B", "D", "R:OTHER"))
    # Insertion + 2 substitutions [I åkte, S gick->till, S hem->stan] (costs: I 1, gick/till 0.75,
    # hem/stan 1.0): the S S pair splits, then [I, S] holds words and merges.
    assert generic_edits("jag gick hem idag", "jag åkte till stan idag") == (
        (1, 2, 1, 3, "gick", "åkte till", "R:OTHER"), (2, 3, 3, 4, "hem", "stan", "R:OTHER"))
    assert is_punct(",") and is_punct("«") and is_punct("...") and not is_punct("a.") and not is_punct("")


def test_generic_extractor_cache_and_dedup(tmp_path, monkeypatch):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path))
    ex = GenericExtractor()
    pairs = [("a b c", "a c"), ("a b c", "a c"), ("x", "x")]
    out = ex.extract(pairs)
    assert out[0] == out[1] and out[2] == () and out[0][0].key == (1, 2, "")
    assert GenericExtractor().extract(pairs[:1]) == out[:1]  # read back from the store
    assert generic_extractor().signature() == "generic-align:1"
