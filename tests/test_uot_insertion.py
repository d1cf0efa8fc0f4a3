"""Issue 19.1: edits are applied left to right, two insertions at one position in ERRANT's
order (gecommon's ``apply_edits``, which the official UOT-ERRANT code uses), so the sentences of
UOT-ERRANT's Eq. 1 are the right ones."""

from __future__ import annotations

import pytest

from gec_meta.edits.edit import Edit, apply_edits
from gec_meta.metrics.edit.uot_vectors import edit_sentences

# SEEDA (subset) sentence 42 and CoNLL-2014 annotator 0's correction of it (official refset,
# reference 0); ERRANT splits the correction into four edits, two of them insertions at 14.
SRC_42 = "It will be hard for an individual to deal with the issue on its own ."
REF_42 = "It is hard for an individual to deal with the issue on his or her own ."
EDITS_42 = [(1, 3, "is"), (13, 14, "his"), (14, 14, "or"), (14, 14, "her")]


# ----------------------------------------------------------------- hand toys
def test_insertions_at_one_position_keep_their_order():
    assert apply_edits("a b", [(1, 1, "x"), (1, 1, "y")]) == "a x y b"
    assert apply_edits("a b", [(1, 1, "y"), (1, 1, "x")]) == "a y x b"
    assert apply_edits("a b", [(2, 2, "x"), (2, 2, "y z"), (0, 0, "w")]) == "w a b x y z"
    # Input order only matters between edits of one span: (start, end) order otherwise.
    assert apply_edits("a b c d", [(3, 4, "D"), (1, 1, "x"), (1, 1, "y"), (0, 1, "")]) == "x y b c D"


def test_running_offset_over_size_changing_edits():
    # "a b c d e": delete b (-1), replace c by three tokens (+2), insert after d (+1), drop e.
    edits = [(1, 2, ""), (2, 3, "C1 C2 C3"), (4, 4, "x"), (4, 5, "")]
    assert apply_edits("a b c d e", edits) == "a C1 C2 C3 d x"
    # An insertion at i goes before a replacement of [i, j), as ERRANT lists them.
    assert apply_edits("a b c", [(1, 2, "B"), (1, 1, "x")]) == "a x B c"


def test_overlapping_and_outside_edits_are_errors():
    with pytest.raises(ValueError, match="overlaps"):
        apply_edits("a b c", [(0, 2, "x"), (1, 3, "y")])
    with pytest.raises(ValueError, match="overlaps"):
        apply_edits("a b c", [(0, 2, "x"), (1, 1, "y")])
    with pytest.raises(ValueError, match="outside"):
        apply_edits("a b", [(1, 3, "x")])


def test_sentence_42_edit_sentences_by_hand():
    assert apply_edits(SRC_42, EDITS_42) == REF_42
    assert apply_edits(SRC_42, [Edit.span(*k) for k in EDITS_42]) == REF_42
    base, variants = edit_sentences(SRC_42, EDITS_42, "remove")
    assert base == REF_42
    assert variants == [  # S_{E minus e_i} (Eq. 1), written out by hand
        "It will be hard for an individual to deal with the issue on his or her own .",
        "It is hard for an individual to deal with the issue on its or her own .",
        "It is hard for an individual to deal with the issue on his her own .",
        "It is hard for an individual to deal with the issue on his or own .",
    ]
    base, variants = edit_sentences(SRC_42, EDITS_42, "add")
    assert base == SRC_42
    assert variants[2:] == [
        "It will be hard for an individual to deal with the issue on its or own .",
        "It will be hard for an individual to deal with the issue on its her own .",
    ]


# ----------------------------------------------------------------- real data
@pytest.mark.slow
@pytest.mark.ci
def test_seeda_reference0_sentence42_rebuilds_his_or_her(data_root):
    from gec_meta.data.datasets import load_dataset
    from gec_meta.data.refsets import load_refset
    from gec_meta.edits.edit_sets import errant_edit_sets

    ds = load_dataset("seeda", data_root, setting="base")
    refs = load_refset("official", ds, data_root, missing_annotator="source")
    assert (ds.sources[42], refs.texts[0][42]) == (SRC_42, REF_42)
    (edits,), = errant_edit_sets([SRC_42], [[REF_42]])
    assert [e.key for e in edits] == EDITS_42  # ERRANT: 'or' (M:CONJ) before 'her' (M:DET)
    # The reference itself is the independent value: S_E of its own edits must be it.
    assert apply_edits(SRC_42, edits) == REF_42 == "It is hard for an individual to deal with the issue on his or her own ."


@pytest.mark.slow
def test_every_seeda_edit_set_rebuilds_its_text(data_root):
    """Applying a text's ERRANT edits (noop/UNK dropped) to the source gives the text back
    whenever no UNK edit was dropped: 12 systems and 2 official references of SEEDA base."""
    from gec_meta.data.datasets import load_dataset
    from gec_meta.data.refsets import load_refset
    from gec_meta.edits.extract import errant_extractor

    ds = load_dataset("seeda", data_root, setting="base")
    refs = load_refset("official", ds, data_root, missing_annotator="source")
    texts = [*ds.hypotheses, *refs.texts]
    pairs = [(ds.sources[n], t[n]) for t in texts for n in range(len(ds.sources))]
    all_edits = errant_extractor().extract(pairs)
    checked = 0
    for (src, text), edits in zip(pairs, all_edits):
        if any(e.type == "UNK" for e in edits):
            continue
        kept = [e for e in edits if not e.ignored]
        assert apply_edits(src, kept) == " ".join(text.split()), (src, text, kept)
        checked += 1
    assert checked > 0.95 * len(pairs)
