"""``gec-meta errant-types --reference-edits gold``: an M2 reference file's own spans and types,
as ``errant_compare -hyp HYP.m2 -ref REF.m2 -cat 3`` reads them.

Independent value: the official ``errant_compare`` (errant 3.0.2 of the environment) on the
same reference M2 (block 105 of CoNLL-2014's official M2 as CLEME ships it, ``cleme/conll14.errant``)
and a hypothesis M2 holding the ERRANT edits of the hypothesis text (written out below: ERRANT
merges "have the opinion of" -> "prefer to" into one edit, 5 9).  With the default
(``extract``), the references' edits are re-extracted from their texts, so their spans and types
are ERRANT's, not the annotators'.
"""

from __future__ import annotations

import json
import subprocess
import sys

SRC = "Therefore , some carriers will have the opinion of keeping it as a secret ."
HYP = "Therefore , some carriers will prefer to keep it as a secret ."
REF_M2 = f"""S {SRC}
A 5 8|||R:OTHER|||prefer|||REQUIRED|||-NONE-|||0
A 8 9|||R:PART|||to|||REQUIRED|||-NONE-|||0
A 9 10|||R:VERB:FORM|||keep|||REQUIRED|||-NONE-|||0
A 5 8|||R:OTHER|||want|||REQUIRED|||-NONE-|||1
A 8 9|||R:PART|||to|||REQUIRED|||-NONE-|||1
A 9 10|||R:VERB:FORM|||keep|||REQUIRED|||-NONE-|||1
A 11 12|||U:PREP||||||REQUIRED|||-NONE-|||1

"""
HYP_M2 = f"""S {SRC}
A 5 9|||R:OTHER|||prefer to|||REQUIRED|||-NONE-|||0
A 9 10|||R:VERB:FORM|||keep|||REQUIRED|||-NONE-|||0

"""


def _official_per_type(hyp, ref) -> dict[str, tuple[int, int, int]]:
    out = subprocess.run([sys.executable, "-c", "from errant.commands.compare_m2 import main; main()",
                          "-hyp", str(hyp), "-ref", str(ref), "-cat", "3"],
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        cells = line.split()
        if len(cells) == 7 and cells[1].isdigit():
            rows[cells[0]] = (int(cells[1]), int(cells[2]), int(cells[3]))
        if len(cells) == 6 and cells[0].isdigit():
            rows["ALL"] = (int(cells[0]), int(cells[1]), int(cells[2]))
    return rows


def test_gold_reference_edits_give_errant_compare_per_type(tmp_path, capsys):
    from gec_meta.cli.main import main

    for name, text in (("src.txt", SRC + "\n"), ("hyp.txt", HYP + "\n"), ("ref.m2", REF_M2), ("hyp.m2", HYP_M2)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    official = _official_per_type(tmp_path / "hyp.m2", tmp_path / "ref.m2")
    assert official["ALL"] == (1, 1, 2) and official["R:PART"] == (0, 0, 1)  # the file's own R:PART edit
    args = ["errant-types", "--src", str(tmp_path / "src.txt"), "--hyp", str(tmp_path / "hyp.txt"),
            "--ref", str(tmp_path / "ref.m2"), "--json"]
    assert main([*args, "--reference-edits", "gold"]) == 0
    ours = json.loads(capsys.readouterr().out)
    assert {t: (v["tp"], v["fp"], v["fn"]) for t, v in ours.items()} == official
    # the default re-extracts annotator 0's text "... prefer to keep ...": ERRANT's edits equal
    # the hypothesis', so nothing is missed (what errant_compare gives on errant_parallel output)
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["ALL"]["fn"] == 0
