"""Edit-level attribution (issue 19, item 8): add / sub / Shapley values against hand calculation
and gec-metrics' attributors, efficiency on a real metric, sampled Shapley, the CLI and the PNG.

Independent values:
* hand arithmetic, written out next to each expected value;
* gec-metrics (github.com/gotutiyan/gec-metrics, commit 320c830, ``analysis/attributor``;
  not on PyPI -- 0.1.1 there has no ``analysis`` -- so run from a checkout in a scratch venv
  with a stub ``MetricBase`` and ``inputs_edits``) on the toy interaction metric below gave
  AttributorAdd [3.0, 6.0, 0.0, -3.0], AttributorSub [3.0, 1.2, 2.4, -0.6],
  AttributorShapley [3.0, 2.0, 2.0, -1.0], src_score 0.0, sent_score (its delta) 6.0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from gec_meta.analysis.attribution import (
    Attribution,
    attribute_edits,
    exact_shapley,
    plan,
    prefix_masks,
    summarize_by_type,
)
from gec_meta.edits.edit import Edit
from gec_meta.errors import ConfigError, DataError
from gec_meta.metrics.base import Metric

SRC = "This are a sentences with error ."
HYP = "This is a sentence with errors !"
REF = "This is a sentence with errors ."
# ERRANT's edits of SRC -> HYP (checked against ERRANT in test_real_metric_efficiency_and_values).
EDITS = (Edit.span(1, 2, "is", "R:VERB:SVA"), Edit.span(3, 4, "sentence", "R:NOUN:NUM"),
         Edit.span(5, 6, "errors", "R:NOUN:NUM"), Edit.span(6, 7, "!", "R:PUNCT"))


@dataclass(frozen=True)
class TokenGame(Metric):
    """Toy reference-free metric: +1 per token "is", +2 per "sentence", -1 per "!", and, when
    ``interaction`` > 0, + interaction if "is" and "errors" are both present.  Counts its calls."""

    interaction: float = 0.0
    name: ClassVar[str] = "token_game"
    needs_references: ClassVar[bool] = False
    cacheable: ClassVar[bool] = False
    calls: ClassVar[list] = []

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        TokenGame.calls.append([list(h) for h in hypotheses])

        def score(text: str) -> float:
            t = text.split()
            both = "is" in t and "errors" in t
            return t.count("is") + 2 * t.count("sentence") - t.count("!") + self.interaction * both

        return np.array([[score(h) for h in hyp] for hyp in hypotheses], dtype=np.float64)[:, :, None, None]


def _attr(metric, method, **kw) -> Attribution:
    return attribute_edits(metric, [SRC], [EDITS], None, method, hypotheses=[HYP], use_cache=False, **kw)[0]


# ----------------------------------------------------------------------------- toy games
def test_additive_game_all_methods_agree():
    # v(T) = sum of the edits' own values: is +1, sentence +2, errors 0, "!" -1 (the "." it
    # replaces is worth 0).  For an additive game every method gives the edit's own value:
    # add: v({i}) - v({}) = own; sub: v(all) - v(all - i) = own; Shapley: every marginal = own.
    game = TokenGame()
    for method in ("add", "sub", "shapley"):
        att = _attr(game, method)
        assert att.src_score == 0.0  # SRC has none of the tokens
        assert att.sent_score == 2.0  # 1 + 2 + 0 - 1
        np.testing.assert_allclose(att.attribution, [1.0, 2.0, 0.0, -1.0], atol=1e-12)


def test_interaction_game_hand_and_gec_metrics():
    # v(T) = [is] + 2 [sentence] - [!] + 4 [is and errors]; v(all) = 1 + 2 - 1 + 4 = 6, v({}) = 0.
    game = TokenGame(interaction=4.0)
    add = _attr(game, "add")
    # add: is 1, sentence 2, errors 0 (alone no "is"), ! -1.
    np.testing.assert_allclose(add.attribution, [1.0, 2.0, 0.0, -1.0], atol=1e-12)
    sub = _attr(game, "sub")
    # sub: v(all) - v(all - i): is 6 - (2 - 1) = 5, sentence 6 - 4 = 2, errors 6 - 2 = 4, ! 6 - 7 = -1.
    np.testing.assert_allclose(sub.attribution, [5.0, 2.0, 4.0, -1.0], atol=1e-12)
    shap = _attr(game, "shapley")
    # Shapley: the interaction 4 is shared equally by "is" and "errors" (symmetric in it):
    # is 1 + 2 = 3, sentence 2, errors 0 + 2 = 2, ! -1; sum 6 = v(all) - v({}).
    np.testing.assert_allclose(shap.attribution, [3.0, 2.0, 2.0, -1.0], atol=1e-12)
    assert (shap.src_score, shap.sent_score) == (0.0, 6.0)
    # gec-metrics' normalised add/sub (post_process: scale to sum 6): add sums 2 -> x3 =
    # [3, 6, 0, -3]; sub sums 10 -> x0.6 = [3, 1.2, 2.4, -0.6].  Same values from gec-metrics.
    np.testing.assert_allclose(_attr(game, "add", normalize=True).attribution, [3.0, 6.0, 0.0, -3.0], atol=1e-12)
    np.testing.assert_allclose(_attr(game, "sub", normalize=True).attribution, [3.0, 1.2, 2.4, -0.6], atol=1e-12)


def test_exact_shapley_two_player_game():
    # v({}) = 0, v({0}) = 1, v({1}) = 2, v({0,1}) = 5 (index = bitmask).
    # phi0 = 1/2 (1 - 0) + 1/2 (5 - 2) = 2;  phi1 = 1/2 (2 - 0) + 1/2 (5 - 1) = 3.
    np.testing.assert_allclose(exact_shapley([0.0, 1.0, 2.0, 5.0]), [2.0, 3.0])
    with pytest.raises(ValueError):
        exact_shapley([0.0, 1.0, 2.0])


def test_prefix_masks_and_plans():
    # order (2, 0, 1): {} = 0, {2} = 4, {2,0} = 5, {2,0,1} = 7.
    np.testing.assert_array_equal(prefix_masks(np.array([[2, 0, 1]])), [[0, 4, 5, 7]])
    assert plan("add", 3).masks == (0, 1, 2, 4, 7)
    assert plan("sub", 3).masks == (0, 3, 5, 6, 7)  # 7 without bit 2, 1, 0
    assert plan("shapley", 3).masks == tuple(range(8)) and not plan("shapley", 3).sampled
    p = plan("shapley", 3, max_exact_edits=2, num_samples=5, rng=np.random.default_rng(0))
    assert p.sampled and p.orders.shape == (5, 3) and {0, 7} <= set(p.masks)
    with pytest.raises(ConfigError):
        plan("banzhaf", 3)


def test_sampled_shapley_converges_and_is_seeded():
    # Six edits: four of SRC plus two more tokens; exact values with max_exact_edits = 10.
    src = SRC + " xx yy"
    edits = (*EDITS, Edit.span(7, 8, "is", "R:OTHER"), Edit.span(8, 9, "sentence", "R:OTHER"))
    game = TokenGame(interaction=4.0)
    exact = attribute_edits(game, [src], [edits], None, "shapley", use_cache=False)[0]
    # Interaction 4 needs errors and at least one "is" (edits 0 and 4): Shapley of errors
    # = 4 * P(errors is not the first of {errors, edit 0, edit 4} in a random order) = 4 * 2/3
    # = 8/3; edits 0 and 4 share the rest, 4 - 8/3 = 4/3, i.e. 2/3 each, plus their own 1:
    # 5/3 each; sentence edits 2 each, ! -1.  Sum 9 = v(all) = 2 + 4 - 1 + 4.
    np.testing.assert_allclose(exact.attribution, [5 / 3, 2, 8 / 3, -1, 5 / 3, 2], atol=1e-12)
    sampled = attribute_edits(game, [src], [edits], None, "shapley", max_exact_edits=0,
                              num_samples=4000, seed=3, use_cache=False)[0]
    assert sampled.sampled and not exact.sampled
    np.testing.assert_allclose(sampled.attribution, exact.attribution, atol=0.1)
    # Every sampled order telescopes to v(all) - v({}): efficiency holds exactly.
    assert sampled.attribution.sum() == pytest.approx(sampled.sent_score - sampled.src_score, abs=1e-9)
    again = attribute_edits(game, [src], [edits], None, "shapley", max_exact_edits=0,
                            num_samples=4000, seed=3, use_cache=False)[0]
    np.testing.assert_array_equal(again.attribution, sampled.attribution)
    other = attribute_edits(game, [src], [edits], None, "shapley", max_exact_edits=0,
                            num_samples=50, seed=4, use_cache=False)[0]
    assert not np.array_equal(other.attribution, sampled.attribution)
    # A sentence's orders depend on (seed, its number), not on the other sentences of the call.
    pair = attribute_edits(game, [SRC, src], [EDITS, edits], None, "shapley", max_exact_edits=0,
                           num_samples=50, seed=4, use_cache=False)
    alone = attribute_edits(game, [src], [edits], None, "shapley", max_exact_edits=0,
                            num_samples=50, seed=4, sentence_ids=[1], use_cache=False)[0]
    np.testing.assert_array_equal(pair[1].attribution, alone.attribution)


def test_one_deduplicated_metric_call():
    TokenGame.calls.clear()
    # Two sentences; "add" needs {}, each single edit and all edits: 1 + 4 + 1 = 6 texts for the
    # first; the second (no edits) needs only {} = all.  The identical first sentence repeated
    # is a different sentence (own slot): 6 + 6 + 1 = 13 texts, one call.
    attribute_edits(TokenGame(), [SRC, SRC, "A b ."], [EDITS, EDITS, ()], None, "add", use_cache=False)
    assert len(TokenGame.calls) == 1 and len(TokenGame.calls[0]) == 1
    texts = TokenGame.calls[0][0]
    assert len(texts) == 13 and texts.count(HYP) == 2 and texts.count(SRC) == 2


def test_no_edits_and_errors():
    att = attribute_edits(TokenGame(), ["It is ."], [()], None, "shapley", use_cache=False)[0]
    assert att.to_json() == {"src_score": 1.0, "sent_score": 1.0, "edits": [], "attribution": [],
                             "method": "shapley", "sampling": None}
    with pytest.raises(DataError, match="line 1"):
        attribute_edits(TokenGame(), [SRC], [EDITS], None, "add", hypotheses=["something else"], use_cache=False)

    @dataclass(frozen=True)
    class SetDependent(TokenGame):
        depends_on_system_set: ClassVar[bool] = True  # as GoToScorer, the LLM metrics, from_files

    with pytest.raises(ConfigError, match="set of systems"):
        attribute_edits(SetDependent(), [SRC], [EDITS], None, "add")
    with pytest.raises(ConfigError):
        attribute_edits(TokenGame(), [SRC], [EDITS], None, "add", num_samples=0)


def test_summarize_by_type():
    a = Attribution("s", "h", 0.0, 1.0, (Edit.span(0, 1, "x", "R:NOUN"), Edit.span(1, 2, "y", "R:VERB")),
                    np.array([0.5, -0.25]), "add")
    b = Attribution("s", "h", 0.0, 1.0, (Edit.span(0, 1, "x", "M:NOUN"),), np.array([0.25]), "add")
    out = summarize_by_type([a, b], level=2)
    # NOUN: 0.5 and 0.25 -> count 2, total 0.75, mean 0.375; VERB: -0.25; ALL: 0.5 / 3.
    assert out["NOUN"] == {"count": 2, "mean": 0.375, "total": 0.75, "positive": 2, "negative": 0}
    assert out["VERB"] == {"count": 1, "mean": -0.25, "total": -0.25, "positive": 0, "negative": 1}
    assert out["ALL"]["count"] == 3 and out["ALL"]["total"] == pytest.approx(0.5)
    assert set(summarize_by_type([a, b], level=1)) == {"M", "R", "ALL"}


# ----------------------------------------------------------------------------- a real metric
def _sentm2_values():
    """SentM2 (F0.5) hand values for HYP against REF (3 gold edits is/sentence/errors, the
    hypothesis has those 3 plus "!", a false positive).  F(tp, fp, fn) with P = 1 when
    tp + fp = 0:
      v({})            = F(0, 0, 3) = 0
      v(one correct)   = F(1, 0, 2): P 1, R 1/3, F = 1.25 (1/3) / (0.25 + 1/3) = 5/7
      v(two correct)   = F(2, 0, 1): P 1, R 2/3, F = (5/6) / (11/12) = 10/11
      v(three correct) = 1;  v(!) = F(0, 1, 3) = 0
      v(one + !)       = F(1, 1, 2): P 1/2, R 1/3, F = (5/24) / (11/24) = 5/11
      v(two + !)       = F(2, 1, 1): P = R = 2/3, F = 2/3
      v(all)           = F(3, 1, 0): P 3/4, R 1, F = (15/16) / (19/16) = 15/19
    Shapley of "!" (E = 4, weights 1/4, 1/12, 1/12, 1/4 for |T| = 0..3; 3 subsets of size 1, 2):
      1/4 (0 - 0) + 3/12 (5/11 - 5/7) + 3/12 (2/3 - 10/11) + 1/4 (15/19 - 1)
      = 1/4 (-20/77 - 8/33 - 4/19); each correct edit: (15/19 - phi_!) / 3 (symmetry, efficiency).
    """
    phi_bang = (-20 / 77 - 8 / 33 - 4 / 19) / 4
    return {
        "add": [5 / 7, 5 / 7, 5 / 7, 0.0],
        "sub": [15 / 19 - 2 / 3] * 3 + [15 / 19 - 1],
        "shapley": [(15 / 19 - phi_bang) / 3] * 3 + [phi_bang],
    }


@pytest.mark.parametrize("metric", ["sentm2", "senterrant", "m2"])
def test_real_metric_efficiency_and_values(metric):
    from gec_meta.api import attribute

    expected = _sentm2_values()
    for method in ("add", "sub", "shapley"):
        att = attribute(SRC, HYP, [REF], metric=metric, method=method, use_cache=False)
        assert tuple((e.start, e.end, e.correction, e.type) for e in att.edits) == tuple(
            (e.start, e.end, e.correction, e.type) for e in EDITS)
        assert att.src_score == 0.0
        assert att.sent_score == pytest.approx(15 / 19, abs=1e-12)
        np.testing.assert_allclose(att.attribution, expected[method], atol=1e-12)
        if method == "shapley":  # efficiency: exact Shapley values sum to sent_score - src_score
            assert att.attribution.sum() == pytest.approx(att.sent_score - att.src_score, abs=1e-12)


# ----------------------------------------------------------------------------- CLI and PNG
@pytest.fixture()
def files(tmp_path):
    src, hyp, ref = tmp_path / "src.txt", tmp_path / "hyp.txt", tmp_path / "ref.txt"
    src.write_text(f"{SRC}\nHe go to school .\n")
    hyp.write_text(f"{HYP}\nHe went to the school .\n")
    ref.write_text(f"{REF}\nHe went to school .\n")
    return tmp_path, [f"--src={src}", f"--hyp={hyp}", f"--ref={ref}"]


def test_cli_json_by_type_and_png(files, capsys):
    from gec_meta.cli.main import main

    tmp, args = files
    png = tmp / "out" / "att.png"
    assert main(["attribute", *args, "--metric", "sentm2", "--method", "shapley", "--line", "1",
                 "--json", "--png", str(png)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["src_score", "sent_score", "edits", "attribution", "method", "sampling"]
    assert out["method"] == "shapley" and out["sampling"] is None  # 4 edits: exact
    assert out["edits"] == [[1, 2, "is", "R:VERB:SVA"], [3, 4, "sentence", "R:NOUN:NUM"],
                            [5, 6, "errors", "R:NOUN:NUM"], [6, 7, "!", "R:PUNCT"]]
    np.testing.assert_allclose(out["attribution"], _sentm2_values()["shapley"], atol=1e-12)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image as mpimg

    img = mpimg.imread(png)
    assert img.shape[0] > 50 and img.shape[1] > 500

    # Both lines, add: line 2 has went (a gold edit) and "the" (not gold).  Against
    # "He went to school ." (1 gold edit): v({}) = 0; v(went) = F(1, 0, 0) = 1; v(the) = 0.
    assert main(["attribute", *args, "--metric", "sentm2", "--method", "add", "--json"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert len(both) == 2 and both[1]["attribution"] == [1.0, 0.0]
    assert main(["attribute", *args, "--metric", "sentm2", "--method", "add", "--by-type", "--cat", "1",
                 "--json"]) == 0
    by_type = json.loads(capsys.readouterr().out)
    # R: is, sentence, errors (5/7 each), ! (0), went (1); M: the (0).
    assert by_type["R"]["count"] == 5 and by_type["R"]["total"] == pytest.approx(15 / 7 + 1)
    assert by_type["M"] == {"count": 1, "mean": 0.0, "total": 0.0, "positive": 0, "negative": 0}
    assert main(["attribute", *args, "--metric", "sentm2", "--by-type"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split() == ["type", "count", "mean", "total", "positive",
                                                               "negative"]
    assert main(["attribute", *args, "--metric", "sentm2", "--png", str(png)]) == 2  # a PNG of which line? (needs --line)
    assert "--line" in capsys.readouterr().err


def test_plot_segments():
    from gec_meta.report.attribution_plot import segments

    # An insertion at 1, a replacement of [1, 2) and a deletion of [3, 4) of "a b c d".
    edits = (Edit.span(1, 2, "B", "R:X"), Edit.span(1, 1, "new", "M:X"), Edit.span(3, 4, "", "U:X"))
    att = Attribution("a b c d", "a new B c", 0.0, 0.0, edits, np.zeros(3), "add")
    assert segments(att) == [("a", None), ("∅ → new", 1), ("b → B", 0), ("c", None), ("d → ∅", 2)]


# ----------------------------------------------------------------------------- real data
@pytest.mark.slow
@pytest.mark.ci
def test_seeda_sentences_efficiency_and_pipeline_scores(data_root):
    """20 SEEDA sentences of one system, SentERRANT: sent_score and src_score equal the scores the
    meta-evaluation pipeline gives the hypothesis and the source (Task statistics), and the
    Shapley values (exact up to 6 edits, sampled beyond) sum to sent_score - src_score."""
    from gec_meta.analysis.attribution import attribute
    from gec_meta.api import load_dataset, load_metric, load_refset
    from gec_meta.meta.task import compute_statistics

    ds = load_dataset("seeda", setting="base", root=data_root)
    refs = load_refset("official", ds, data_root)
    metric = load_metric("senterrant")
    n = 20
    sources = list(ds.sources[:n])
    hyps = list(ds.hypotheses[0][:n])
    texts = [t[:n] for t in refs.for_metric(metric.reference_kind)]
    atts = attribute(metric, sources, hyps, texts, "shapley", max_exact_edits=6, num_samples=200, seed=0)
    stats = compute_statistics(metric, sources, [hyps, sources], texts)
    pipeline = metric.sentence_scores(stats)  # (2, n): the hypothesis, the source
    np.testing.assert_array_equal([a.sent_score for a in atts], pipeline[0])
    np.testing.assert_array_equal([a.src_score for a in atts], pipeline[1])
    assert sum(len(a.edits) for a in atts) > 20 and any(a.sampled for a in atts)  # line 2: 7 edits
    for a in atts:
        assert a.attribution.sum() == pytest.approx(a.sent_score - a.src_score, abs=1e-9)
    summary = summarize_by_type(atts)
    assert summary["ALL"]["count"] == sum(len(a.edits) for a in atts)
