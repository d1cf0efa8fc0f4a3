"""GMEG-Data, all domains (Napoles, Nădejde & Tetreault, TACL 2019): ``dataset=gmeg
dataset.domain=wiki|fce|yahoo dataset.split=test|dev``.

The expected values are the published files themselves, read here with the ``csv`` module
independently of the loader (``grammarly/GMEG`` @ 83be7cd0 ``data/<split>/<domain>-corpus-scores.csv``
and ``-segment-scores.csv``), and the facts of the data README section 6 (row counts, unrated
rows, the 2-decimal test table, "empty rows as 0 gives Yahoo test amu 72.51").
"""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from gec_meta.data.datasets import GMEG_SYSTEMS, load_dataset, load_gmeg, load_gmeg_wiki
from gec_meta.errors import ConfigError, DataError, MissingDataError

DOMAINS_WITH_TEXT = ("wiki", "fce")
SPLITS = ("test", "dev")


@pytest.fixture(scope="module")
def gmeg_root(data_root):
    test = data_root / "gmeg" / "test"
    if not (test / "fce").is_dir() or not (test / "yahoo-corpus-scores.csv").is_file():
        pytest.skip(f"GMEG FCE/Yahoo files not in {data_root}: run `gec-meta data` (the manifest lists them "
                    "since issue 25)")
    return data_root


def _corpus_csv(path) -> dict[str, float]:
    with open(path, encoding="utf-8", newline="") as fh:
        return {row["system"]: float(row["score"]) for row in csv.DictReader(fh)}


def _segment_csv(path) -> tuple[list[str], list[list[str]]]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


@pytest.mark.parametrize("domain", DOMAINS_WITH_TEXT)
@pytest.mark.parametrize("split", SPLITS)
def test_human_scores_are_the_published_corpus_csv(gmeg_root, domain, split):
    """The loader's human system scores are the corpus CSV's values, system by system
    (``ref`` = the rated reference, the file ref0)."""
    published = _corpus_csv(gmeg_root / "gmeg" / split / f"{domain}-corpus-scores.csv")
    ds = load_dataset("gmeg", gmeg_root, domain=domain, split=split)
    assert ds.systems == GMEG_SYSTEMS
    assert {s: float(v) for s, v in zip(ds.systems, ds.human["score"])} == published


@pytest.mark.parametrize("domain", ("wiki", "fce", "yahoo"))
@pytest.mark.parametrize("split", SPLITS)
def test_corpus_scores_are_means_over_the_rated_rows(gmeg_root, domain, split):
    """Data README section 6: each corpus score is the mean of its segment column over the rated
    (non-empty) rows, to within 1e-13; the loader's NaN rows are exactly the empty rows."""
    published = _corpus_csv(gmeg_root / "gmeg" / split / f"{domain}-corpus-scores.csv")
    header, rows = _segment_csv(gmeg_root / "gmeg" / split / f"{domain}-segment-scores.csv")
    for col, system in enumerate(header):
        cells = [float(r[col]) for r in rows if r[col].strip()]
        assert math.fsum(cells) / len(cells) == pytest.approx(published[system], abs=1e-12)


# Data README section 6: rows (dev / test) and unrated rows (dev / test) per domain.
ROWS = {("wiki", "dev"): (992, 12), ("wiki", "test"): (992, 12), ("fce", "dev"): (968, 6),
        ("fce", "test"): (968, 5), ("yahoo", "dev"): (999, 28), ("yahoo", "test"): (1000, 27)}


@pytest.mark.parametrize("domain", DOMAINS_WITH_TEXT)
@pytest.mark.parametrize("split", SPLITS)
def test_sentences_and_unrated_rows(gmeg_root, domain, split):
    n, unrated = ROWS[(domain, split)]
    ds = load_dataset("gmeg", gmeg_root, domain=domain, split=split)
    seg = ds.segment_scores["score"]
    assert ds.num_sentences == n and seg.shape == (8, n)
    assert int(np.isnan(seg).all(axis=0).sum()) == unrated
    assert not np.isnan(seg[:, ~np.isnan(seg).all(axis=0)]).any()  # a rated row is rated for all 8


def test_fce_test_table_of_the_data_readme(gmeg_root):
    """Data README section 6, test values to 2 decimals (FCE row)."""
    expected = {"amu": 71.23, "marian": 77.32, "nus": 74.25, "lstm": 74.54, "lstm-r": 74.70,
                "transformer": 74.12, "ref": 83.28, "source": 68.71}
    ds = load_gmeg(gmeg_root, "fce", "test")
    for s, v in zip(ds.systems, ds.human["score"]):
        assert round(float(v), 2) == expected[s]
    # FCE test rows 32, 318, 324, 344, 564 (1-based, after the header) are unrated.
    unrated = np.flatnonzero(np.isnan(ds.segment_scores["score"]).all(axis=0)) + 1
    assert unrated.tolist() == [32, 318, 324, 344, 564]


def test_yahoo_empty_rows_as_zero_would_differ(gmeg_root):
    """Data README section 6: counting Yahoo test's empty rows as 0 gives amu 72.51, not the
    published 74.52 -- the loader must skip them (it reads the published mean)."""
    header, rows = _segment_csv(gmeg_root / "gmeg" / "test" / "yahoo-segment-scores.csv")
    col = header.index("amu")
    as_zero = math.fsum(float(r[col]) if r[col].strip() else 0.0 for r in rows) / len(rows)
    assert round(as_zero, 2) == 72.51
    assert round(_corpus_csv(gmeg_root / "gmeg" / "test" / "yahoo-corpus-scores.csv")["amu"], 2) == 74.52


@pytest.mark.parametrize("split", SPLITS)
def test_gmeg_wiki_alias_is_the_wiki_domain(gmeg_root, split):
    """``gmeg_wiki`` keeps its name and signature (results published before the other domains);
    ``gmeg`` with domain=wiki is the same data under the name ``gmeg``."""
    alias, full = load_gmeg_wiki(gmeg_root, split), load_gmeg(gmeg_root, "wiki", split)
    assert alias.signature() == f"gmeg_wiki(setting={split},unicode=nfc+cf)"  # as every dataset names its
    assert full.signature() == f"gmeg(domain=wiki,setting={split},unicode=nfc+cf)"  # Unicode normalisation
    assert (alias.sources, alias.hypotheses, alias.references, alias.corpus) == (
        full.sources, full.hypotheses, full.references, full.corpus)
    assert np.array_equal(alias.human["score"], full.human["score"])
    assert np.array_equal(alias.segment_scores["score"], full.segment_scores["score"], equal_nan=True)


def test_fce_meta_evaluation_has_acc_eq_and_spa(gmeg_root):
    """acc_eq and SPA come from FCE's segment ratings as for Wiki: groups = the rated sentences."""
    from gec_meta.api import load_metric, meta_evaluate

    ds = load_gmeg(gmeg_root, "fce", "test")
    res = meta_evaluate(ds, load_metric("length"), "default", spa_permutations=100)
    assert res.sentence["score"]["groups"] == 968 - 5
    assert 0 <= res.sentence["score"]["acc_eq"] <= 1 and 0 <= res.system["score"]["spa"] <= 1
    assert res.signature.startswith("data:gmeg(domain=fce,setting=test,unicode=nfc+cf)|refs:none|")


def _yahoo_text(folder, n: int) -> None:
    folder.mkdir(parents=True)
    for name in ("source", "amu", "lstm", "lstm-r", "marian", "nus", "transformer", "ref0", "ref1", "ref2", "ref3"):
        (folder / name).write_text("".join(f"{name} sentence {k} .\n" for k in range(n)), encoding="utf-8")


def test_yahoo_needs_the_text_from_grammarly(gmeg_root, tmp_path):
    with pytest.raises(MissingDataError, match=r"peng\.wang@grammarly\.com.*dataset\.yahoo_dir") as err:
        load_gmeg(gmeg_root, "yahoo", "test")
    assert "\n" not in str(err.value)
    # Text in a user folder: the published ratings, checked against its line count (test: 1,000 rows).
    _yahoo_text(tmp_path / "yahoo", 1000)
    ds = load_gmeg(gmeg_root, "yahoo", "test", yahoo_dir=tmp_path / "yahoo")
    published = _corpus_csv(gmeg_root / "gmeg" / "test" / "yahoo-corpus-scores.csv")
    assert {s: float(v) for s, v in zip(ds.systems, ds.human["score"])} == published
    assert ds.num_sentences == 1000 and int(np.isnan(ds.segment_scores["score"]).all(axis=0).sum()) == 27
    assert ds.hypotheses[ds.systems.index("ref")][3] == "ref0 sentence 3 ."
    assert ds.signature() == "gmeg(domain=yahoo,setting=test,unicode=nfc+cf)"
    _yahoo_text(tmp_path / "short", 999)
    with pytest.raises(DataError, match=r"short/source: has 999 lines, expected 1000"):
        load_gmeg(gmeg_root, "yahoo", "test", yahoo_dir=tmp_path / "short")


def test_bad_gmeg_options_name_the_key(gmeg_root):
    with pytest.raises(ConfigError, match="dataset.domain must be one of"):
        load_gmeg(gmeg_root, "reddit")
    with pytest.raises(ConfigError, match="dataset.split must be one of"):
        load_gmeg(gmeg_root, "fce", "train")
    with pytest.raises(ConfigError, match="dataset.yahoo_dir applies to dataset.domain=yahoo"):
        load_gmeg(gmeg_root, "fce", yahoo_dir="/tmp")


def test_gmeg_config_composes(gmeg_root):
    from hydra.utils import instantiate

    from gec_meta.config import compose

    cfg = compose(("dataset=gmeg", "dataset.domain=fce", "dataset.split=dev", f"data_dir={gmeg_root}"))
    ds = instantiate(cfg.dataset, root=cfg.data_dir)
    assert (ds.name, ds.setting, ds.options["domain"], ds.num_sentences) == ("gmeg", "dev", "fce", 968)
