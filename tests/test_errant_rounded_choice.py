"""errant_compare's choice of reference compares the running F rounded to 4 decimals.

``errant/commands/compare_m2.py`` (``evaluate_edits``) keeps, per sentence, the reference whose
running totals give the largest ``computeFScore`` F -- which returns ``round(f, 4)`` -- then the
larger TP, smaller FP, smaller FN.  Two references whose running F agree to 4 decimals are thus
told apart by TP, not by the 5th decimal.  Independent value: the official ``errant_compare``
(errant 3.0.2 of the environment) run on the same files.

The case (found in session 22's review): sentence 1 gives both annotators 71 TP and 66 FN; in
sentence 2 the hypothesis makes one correct edit of annotator 0's six and one edit annotator 1
did not make.  Running F0.5: annotator 0 72/0/71 -> 0.835267..., annotator 1 71/1/66 ->
0.835294...; both round to 0.8353, so errant_compare keeps annotator 0 (more TP) where the
unrounded comparison keeps annotator 1.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from gec_meta.metrics.edit.core import rounded_running_best


def _files(tmp_path):
    words = [f"w{i}" for i in range(137)]
    src1, src2 = " ".join(words), " ".join(words[:8])
    # sentence 1: 71 edits the hypothesis makes and 66 it does not, the same for both annotators
    gold1 = [f"A {i} {i + 1}|||R:NOUN|||X|||REQUIRED|||-NONE-|||{a}" for a in (0, 1) for i in range(137)]
    hyp1 = [f"A {i} {i + 1}|||R:NOUN|||X|||REQUIRED|||-NONE-|||0" for i in range(71)]
    # sentence 2: annotator 0 has six edits, the hypothesis one of them; annotator 1 none
    gold2 = [f"A {i} {i + 1}|||R:NOUN|||X|||REQUIRED|||-NONE-|||0" for i in range(6)] + \
            ["A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1"]
    hyp2 = ["A 0 1|||R:NOUN|||X|||REQUIRED|||-NONE-|||0"]
    ref = "\n".join([f"S {src1}", *gold1, "", f"S {src2}", *gold2, ""]) + "\n"
    hyp = "\n".join([f"S {src1}", *hyp1, "", f"S {src2}", *hyp2, ""]) + "\n"
    (tmp_path / "ref.m2").write_text(ref, encoding="utf-8")
    (tmp_path / "hyp.m2").write_text(hyp, encoding="utf-8")
    (tmp_path / "src.txt").write_text(f"{src1}\n{src2}\n", encoding="utf-8")
    return tmp_path / "src.txt", tmp_path / "hyp.m2", tmp_path / "ref.m2"


def _official(hyp, ref) -> tuple[int, int, int, float]:
    out = subprocess.run([sys.executable, "-c", "from errant.commands.compare_m2 import main; main()",
                          "-hyp", str(hyp), "-ref", str(ref)], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    values = lines[lines.index("TP\tFP\tFN\tPrec\tRec\tF0.5") + 1].split("\t")
    return int(values[0]), int(values[1]), int(values[2]), float(values[5])


def test_errant_chooses_references_as_errant_compare(tmp_path, capsys):
    from gec_meta.cli.main import main

    src, hyp, ref = _files(tmp_path)
    tp, fp, fn, f = _official(hyp, ref)
    # the case described above: the unrounded comparison would keep annotator 1 (71/1/66)
    assert (tp, fp, fn, f) == (72, 0, 71, 0.8353)
    f_ann0, f_ann1 = (1.25 * 1.0 * (72 / 143)) / (0.25 + 72 / 143), \
        (1.25 * (71 / 72) * (71 / 137)) / (0.25 * (71 / 72) + 71 / 137)
    assert f_ann1 > f_ann0 and round(f_ann0, 4) == round(f_ann1, 4)
    assert main(["score", "--src", str(src), "--hyp-m2", str(hyp), "--ref", str(ref), "--metric", "errant",
                 "-m", "reference_edits=gold", "--json"]) == 0
    import json

    ours = json.loads(capsys.readouterr().out)["systems"]["hyp"]
    p, r = 1.0, tp / (tp + fn)
    assert ours["precision"] == p and abs(ours["recall"] - r) < 1e-12
    assert round(ours["f"], 4) == f and abs(ours["f"] - f_ann0) < 1e-12


def test_rounded_running_best_breaks_a_4_decimal_tie_by_tp():
    # running totals of two references: F0.5 0.835267 (72/0/71) and 0.835294 (71/1/66)
    cand = np.array([[[72.0, 0.0, 71.0], [71.0, 1.0, 66.0]]])
    assert int(rounded_running_best(cand, 0.5)[0]) == 0  # equal at 4 decimals: more TP wins
    cand = np.array([[[72.0, 0.0, 71.0], [80.0, 1.0, 66.0]]])
    assert int(rounded_running_best(cand, 0.5)[0]) == 1  # a larger rounded F wins
