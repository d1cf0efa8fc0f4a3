"""ERRANT on hypothesis edits read from M2 files (issue 19, item 7): ``gec-meta score --hyp-m2``.

Independent values: the output of the official ``errant_compare`` (errant 3.0.2, the package of
the project's environment) on CLEME's example M2 files (THUKElab/CLEME v1.0, commit 5fc7617,
``tests/examples/``, in ``cleme/`` of the data directory), and hand calculations written out
below.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from gec_meta.cli.main import main, read_references
from gec_meta.data.m2 import EditedSentence, GoldEdit, read_hypothesis_m2
from gec_meta.errors import ConfigError
from gec_meta.metrics.edit.errant import Errant, given_or_extracted

REPO = Path(__file__).resolve().parents[1]

#: ``errant_compare -hyp conll14-<SYS>.errant -ref conll14.errant`` (errant 3.0.2, span-based
#: correction, beta 0.5), run in the CLEME example folder: TP, FP, FN, Prec, Rec, F0.5 as printed.
ERRANT_COMPARE = {
    "AMU": (483, 795, 1934, 0.3779, 0.1998, 0.3208),
    "CAMB": (725, 1329, 1886, 0.353, 0.2777, 0.3348),
    "CUUI": (607, 985, 1946, 0.3813, 0.2378, 0.3402),
    "IITB": (28, 65, 2064, 0.3011, 0.0134, 0.0568),
    "INPUT": (0, 0, 2070, 1.0, 0.0, 0.0),
    "IPN": (52, 488, 2078, 0.0963, 0.0244, 0.0606),
    "NTHU": (409, 991, 1976, 0.2921, 0.1715, 0.2561),
    "PKU": (294, 697, 2007, 0.2967, 0.1278, 0.2346),
    "POST": (508, 1152, 1985, 0.306, 0.2038, 0.2781),
    "RAC": (319, 794, 2044, 0.2866, 0.135, 0.234),
    "SJTU": (104, 261, 2036, 0.2849, 0.0486, 0.1444),
    "UFC": (36, 14, 2069, 0.72, 0.0171, 0.0781),
    "UMC": (311, 774, 2020, 0.2866, 0.1334, 0.2331),
}


def _cleme_dir() -> Path:
    """``cleme/`` of the data directory (``$GEC_META_DATA``, else the checkout's ``data/``),
    else of the shared mirror next to the checkout."""
    env = os.environ.get("GEC_META_DATA")
    for root in ([Path(env)] if env else []) + [REPO / "data", REPO.parent / "shared" / "data"]:
        if (root / "cleme" / "conll14.errant").is_file():
            return root / "cleme"
    pytest.skip("CLEME's example M2 files (cleme/ of the data directory) not found: run `make data`")


def _sources(tmp_path: Path, m2: Path) -> Path:
    src = tmp_path / "conll14.src"
    src.write_text("".join(line[2:] for line in m2.read_text(encoding="utf-8").splitlines(True)
                           if line.startswith("S ")), encoding="utf-8")
    return src


@pytest.mark.slow
@pytest.mark.ci
def test_cli_equals_errant_compare_on_amu(tmp_path, capsys):
    """``gec-meta score --hyp-m2 conll14-AMU.errant --ref conll14.errant --metric errant``."""
    d = _cleme_dir()
    src = _sources(tmp_path, d / "conll14.errant")
    assert main(["score", "--src", str(src), "--hyp-m2", str(d / "conll14-AMU.errant"),
                 "--ref", str(d / "conll14.errant"), "--metric", "errant", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metric"] == "errant(beta=0.5,hyp_edits=m2,reference_edits=gold,v=1)"
    amu = out["systems"]["conll14-AMU"]
    _, _, _, p, r, f = ERRANT_COMPARE["AMU"]
    assert (round(amu["precision"], 4), round(amu["recall"], 4), round(amu["f"], 4)) == (p, r, f)
    assert amu["default"] == amu["f"]


@pytest.mark.slow
@pytest.mark.ci
def test_counts_equal_errant_compare_on_every_conll14_system(tmp_path):
    d = _cleme_dir()
    sources = _sources(tmp_path, d / "conll14.errant").read_text(encoding="utf-8").splitlines()
    refs = read_references([str(d / "conll14.errant")], sources).for_metric("m2")
    systems = sorted(ERRANT_COMPARE)
    hyps = [read_hypothesis_m2(d / f"conll14-{s}.errant", sources) for s in systems]
    metric = Errant(reference_edits="gold")
    stats = metric.statistics(sources, hyps, refs)
    counts = metric.corpus_stats(stats)
    p, r, f = metric.prf(counts)
    for k, name in enumerate(systems):
        got = (*(int(c) for c in counts[k]), *(round(float(x[k]), 4) for x in (p, r, f)))
        assert got == ERRANT_COMPARE[name], name


# --------------------------------------------------------------------- by hand
def _gold(start, end, cor, etype="R:X"):
    return GoldEdit(start, end, etype, (cor,), 0, 0)


def test_given_edits_are_scored_not_the_text():
    """Source "a b c d", reference (gold) b -> B and d -> D.

    The same text "a B c D" as two edits (b -> B, d -> D): both match, TP 2, FP 0, FN 0.
    As one edit b c d -> "B c D" (span 1-4): matches neither, TP 0, FP 1, FN 2.
    A noop and a UNK edit are dropped (errant_compare: noop is never a TP/FP, UNK is skipped).
    Plain text "a B c D": ERRANT extracts the two one-token edits, TP 2.
    """
    source = "a b c d"
    refs = (((_gold(1, 2, "B"), _gold(3, 4, "D")),),)  # shape (R, N) = (1, 1) of edit tuples
    two = EditedSentence("a B c D", (_gold(1, 2, "B"), _gold(3, 4, "D"), _gold(0, 1, "a", "UNK")))
    one = EditedSentence("a B c D", (_gold(1, 4, "B c D"), GoldEdit(-1, -1, "noop", ("-NONE-",), 0, 0)))
    metric = Errant(reference_edits="gold")
    stats = metric.statistics([source], [[two], [one], ["a B c D"]], refs)
    np.testing.assert_array_equal(stats[:, 0, 0], [[2, 0, 0], [0, 1, 2], [2, 0, 0]])
    # the edits, not the text, are in the cache key; the signature says hyp_edits=m2
    bound = metric.bind([source], [[one]], refs)
    assert bound.cache_key() != metric.bind([source], [[two]], refs).cache_key()
    assert "hyp_edits=m2" in bound.signature() and metric.bind([source], [["a B c D"]], refs) is metric


def test_given_or_extracted_keeps_given_rows():
    given = EditedSentence("a B", (_gold(1, 2, "B"),))
    edits, is_given = given_or_extracted(["a b"], [[given], ["a B"]], threads=1)
    assert is_given == [True, False]
    assert edits[0] == (given.edits,)
    assert [e.key for e in edits[1][0]] == [e.key for e in Errant().hypothesis_edits(["a b"], [["a B"]])[0][0]]


def test_pt_errant_inherits_given_edits():
    """PT-ERRANT with the ``self`` scorer (unit weights) = ERRANT's counts on given edits."""
    from gec_meta.metrics.edit.pt import PTErrant

    source = "a b c d"
    refs = (((_gold(1, 2, "B"), _gold(3, 4, "D")),),)
    one = EditedSentence("a B c D", (_gold(1, 4, "B c D"),))
    stats = PTErrant(reference_edits="gold").statistics([source], [[one]], refs)
    np.testing.assert_array_equal(stats[0, 0, 0], [0, 1, 2])


def test_reference_edits_is_checked():
    assert Errant(reference_edits="gold").reference_kind == "m2" and Errant().reference_kind == "text"
    with pytest.raises(ConfigError, match="metric.reference_edits"):
        Errant(reference_edits="m2")
