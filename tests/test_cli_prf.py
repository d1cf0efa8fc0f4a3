"""``gec-meta score`` prints the P/R/F that go with the metric's level (issue 19, item 3).

Hand example (m2scorer conventions): sentence 1 needs ``a -> the`` and the system makes it
(P = R = F = 1); sentence 2 needs nothing and the system edits ``is -> was`` (P = 0, R = 1,
F0.5 = 0).  SentM2 = mean of sentence values: P 0.5, R 1.0, F 0.5.  Corpus M2: TP 1, FP 1,
FN 0 -> P 0.5, R 1.0, F0.5 = 1.25 * 0.5 / (0.25 * 0.5 + 1) = 5/9.
"""

from __future__ import annotations

import json

import pytest

from gec_meta.cli.main import main

M2 = ("S a cat sat .\nA 0 1|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0\n\n"
      "S it is good .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n")


@pytest.mark.parametrize("metric,p,r,f", [("m2", 0.5, 1.0, 5 / 9), ("sentm2", 0.5, 1.0, 0.5)])
def test_prf_columns_follow_the_level(tmp_path, capsys, metric, p, r, f):
    (tmp_path / "src.txt").write_text("a cat sat .\nit is good .\n")
    (tmp_path / "hyp.txt").write_text("the cat sat .\nit was good .\n")
    (tmp_path / "ref.m2").write_text(M2)
    assert main(["score", "--src", str(tmp_path / "src.txt"), "--hyp", str(tmp_path / "hyp.txt"),
                 "--ref", str(tmp_path / "ref.m2"), "--metric", metric, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["systems"]["hyp"]
    assert got["precision"] == pytest.approx(p) and got["recall"] == pytest.approx(r)
    assert got["f"] == pytest.approx(f) and got["default"] == pytest.approx(f)


def test_m2_on_plain_text_references_extracts_gold_edits(tmp_path, capsys):
    """Issue 19 item 6: a text-only reference set gives M2 ERRANT-extracted gold edits.
    The reference ``the cat sat . / it is good .`` yields one gold edit (a -> the): the
    hypothesis above scores TP 1, FP 1, FN 0 (5/9, as with the M2 file); the unchanged source
    TP 0, FP 0, FN 1 (P 1, R 0, F 0)."""
    (tmp_path / "src.txt").write_text("a cat sat .\nit is good .\n")
    (tmp_path / "hyp.txt").write_text("the cat sat .\nit was good .\n")
    (tmp_path / "same.txt").write_text("a cat sat .\nit is good .\n")
    (tmp_path / "ref.txt").write_text("the cat sat .\nit is good .\n")
    assert main(["score", "--src", str(tmp_path / "src.txt"), "--hyp", str(tmp_path / "hyp.txt"),
                 str(tmp_path / "same.txt"), "--ref", str(tmp_path / "ref.txt"), "--metric", "m2", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["systems"]
    assert got["hyp"]["f"] == pytest.approx(5 / 9) and got["hyp"]["precision"] == pytest.approx(0.5)
    assert (got["same"]["precision"], got["same"]["recall"], got["same"]["f"]) == (1.0, 0.0, 0.0)
