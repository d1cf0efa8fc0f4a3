"""MultiGEC-2025 human evaluation, ``dataset=multigec2025`` (text-free) and
``metric=multigec_official``.

Expected values: rating sums made with awk on the annotation files (``awk '/^#/{b=$1; next}
NF{split($0,a,/[: ]+/); g[b]+=a[2]; f[b]+=a[4]; n[b]++}'``: 50 texts per block; Swedish LATTICE
141/161, RUMCULL-MIN 102/114, UAM-CSI-MIN 156/160, RUMCULL-FLU 100/107, UAM-CSI-FLU 164/154;
English LATTICE 172/150, RUMCULL-MIN 152/138, UAM-CSI-MIN 175/155) and the official tables as
printed in ``results/test_results_{minimal,fluency}.md`` (## Swedish / SweLL_gold, ## English).
"""

from __future__ import annotations

import numpy as np
import pytest

from gec_meta.data.datasets import load_dataset
from gec_meta.data.multigec import official_scores
from gec_meta.errors import ConfigError, DataError, MissingDataError


@pytest.fixture(scope="module")
def root(data_root):
    if not (data_root / "multigec" / "annotation").is_dir():
        pytest.skip(f"no multigec/ in {data_root}")
    return data_root


def test_human_means(root):
    sv = load_dataset("multigec2025", root, language="sv", track="minimal")
    assert sv.systems == ("LATTICE", "RUMCULL-MIN", "UAM-CSI-MIN") and sv.language == "sv"
    np.testing.assert_allclose(sv.human["grammaticality"], np.array([141, 102, 156]) / 50)
    np.testing.assert_allclose(sv.human["fluency"], np.array([161, 114, 160]) / 50)
    flu = load_dataset("multigec2025", root, language="sv", track="fluency")
    np.testing.assert_allclose(flu.human["grammaticality"], np.array([100, 164]) / 50)
    en = load_dataset("multigec2025", root, language="en", track="all")
    assert len(en.systems) == 5 and en.signature() == "multigec2025(setting=all,texts=none)"
    np.testing.assert_allclose(en.human["fluency"][[0, 1, 3]], np.array([150, 138, 155]) / 50)


def test_official_scores(root):
    sv = official_scores(root, "sv", "all")
    # minimal: Lattice 59.88/40.01/1.0, Rum-Cull 38.28/8.88/0.56, UAM-CSI 69.29/52.56/1.0;
    # fluency: Rum-Cull 38.28/8.88/0.56, UAM-CSI 69.62/53.32/1.0
    np.testing.assert_allclose(sv["gleu"], [59.88, 38.28, 38.28, 69.29, 69.62])
    np.testing.assert_allclose(sv["f05"], [40.01, 8.88, 8.88, 52.56, 53.32])
    np.testing.assert_allclose(sv["scribendi"], [1.0, 0.56, 0.56, 1.0, 1.0])
    en = official_scores(root, "en", "minimal")
    np.testing.assert_allclose(en["f05"], [53.79, 7.37, 59.55])


def test_official_metric_and_text_guard(root):
    from gec_meta.api import load_metric, meta_evaluate

    ds = load_dataset("multigec2025", root, language="sv", track="minimal")
    metric = load_metric("multigec_official", column="f05", language="sv", track="minimal", data_dir=str(root))
    res = meta_evaluate(ds, metric, spa_permutations=0)
    assert res.system_scores == {"LATTICE": 40.01, "RUMCULL-MIN": 8.88, "UAM-CSI-MIN": 52.56}
    # F0.5 order UAM > LATTICE > RUMCULL; grammaticality 3.12 > 2.82 > 2.04: Spearman 1.
    assert res.system["grammaticality"]["spearman"] == pytest.approx(1.0)
    with pytest.raises(ConfigError, match="bootstrap_samples=100: metric multigec_official has published"):
        meta_evaluate(ds, metric, spa_permutations=0, bootstrap_samples=100)
    with pytest.raises(ConfigError, match="texts and system outputs are not public"):
        meta_evaluate(ds, load_metric("gleu"))
    with pytest.raises(ConfigError, match="not public"):
        meta_evaluate(ds, load_metric("length"))


def test_bad_values(root, tmp_path):
    with pytest.raises(ConfigError, match="dataset.language='klingon'"):
        load_dataset("multigec2025", root, language="klingon")
    with pytest.raises(ConfigError, match="dataset.track"):
        load_dataset("multigec2025", root, track="maximal")
    with pytest.raises(MissingDataError):
        load_dataset("multigec2025", tmp_path)
    import shutil
    shutil.copytree(root / "multigec", tmp_path / "multigec")
    (tmp_path / "multigec/results/test_results_fluency.md").unlink()
    with pytest.raises(MissingDataError, match="test_results_fluency.md"):
        load_dataset("multigec2025", tmp_path)
    p = tmp_path / "multigec/annotation/swe_eval"
    lines = p.read_text().split("\n")
    lines[2] = "Grammaticality: 5 Fluency: 2"
    p.write_text("\n".join(lines))
    with pytest.raises(DataError, match="swe_eval:3"):
        load_dataset("multigec2025", tmp_path)


def test_run_config_follows_the_dataset(root):
    """``run.py dataset=multigec2025 dataset.language=en dataset.track=all metric=multigec_official``:
    the metric reads the dataset's table (en, all) and the run's data directory."""
    from gec_meta.cli.run import build_task
    from gec_meta.config import compose

    cfg = compose(("dataset=multigec2025", "dataset.language=en", "dataset.track=all", "metric=multigec_official",
                   "metric.column=scribendi", f"data_dir={root}", "meta_eval.spa_permutations=0"))
    assert (cfg.metric.language, cfg.metric.track) == ("en", "all")
    res = build_task(cfg).run()
    # English: minimal Lattice 0.95, Rum-Cull 0.34, UAM-CSI 0.98; fluency Rum-Cull 0.34, UAM-CSI 0.98.
    assert list(res.system_scores.values()) == [0.95, 0.34, 0.34, 0.98, 0.98]
