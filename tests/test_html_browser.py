"""The HTML pages in a real browser: Debian's chromium (``/usr/bin/chromium``) driven by
Playwright's Python package.  Skipped, with one line saying how to get them, where either is
missing (``apt-get install chromium``; ``pip install -e '.[dev]'`` installs playwright).

Pages: the committed leaderboard (rendered from experiments/results/leaderboard.csv), a single
run and a two-run sweep of the ``length`` metric on GJG15 (seconds), and a folder with missing
parts."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("GEC_META_CHROMIUM", "/usr/bin/chromium")
try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None
if sync_playwright is None or not Path(CHROMIUM).is_file():
    pytest.skip("browser tests need chromium and playwright: apt-get install chromium && pip install playwright "
                "(or `make setup`)", allow_module_level=True)

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def open_page(browser, path: Path, hash_: str = ""):
    """(page, console errors, requests other than the file itself)."""
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    errors, requests = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    url = path.resolve().as_uri()
    page.on("request", lambda r: requests.append(r.url) if r.url.split("#")[0] != url else None)
    page.goto(url + hash_)
    page.wait_for_selector("main")
    return page, errors, requests


@pytest.fixture(scope="module")
def board_page(tmp_path_factory):
    from gec_meta.cli.leaderboard import main

    out = tmp_path_factory.mktemp("board") / "leaderboard.html"
    assert main(["--from", str(REPO / "experiments" / "results" / "leaderboard.csv"), "--html", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory, data_root):
    """A single run and a sweep (aggregation default, average) of metric=length on GJG15, and
    their pages; run and rendered in this process (tests/inprocess.py; ``gec-meta report --html``
    as a process: tests/test_html_report.py)."""
    from gec_meta.cli.main import main as cli_main
    from inprocess import run_main

    base = tmp_path_factory.mktemp("runs")
    env = {**os.environ, "GEC_META_DATA": str(data_root)}
    common = ["dataset=gjg15", "metric=length", "meta_eval.spa_permutations=100", "hydra/job_logging=disabled"]
    for args in ([*common, f"hydra.run.dir={base / 'single'}"],
                 ["-m", *common, "aggregation=default,average", f"hydra.sweep.dir={base / 'sweep'}"]):
        proc = run_main(args, env, REPO)
        assert proc.returncode == 0, proc.stderr[-2000:]
    pages = {}
    for name in ("single", "sweep"):
        pages[name] = base / f"{name}.html"
        assert cli_main(["report", str(base / name), "--html", str(pages[name])]) == 0
    return base, pages


def test_board_loads_sorts_and_filters(browser, board_page):
    page, errors, requests = open_page(browser, board_page)
    assert errors == [] and requests == []
    table = page.locator('table[data-table="board-default"]')
    ranks = [int(t) for t in table.locator('tbody td[data-col="rank"]').all_inner_texts()]
    assert ranks == list(range(1, 18))
    # sort by average value with the keyboard: focus the header's button, Enter -> descending
    button = table.locator('th button[data-key="avg_value"]')
    button.focus()
    page.keyboard.press("Enter")
    values = [float(v) for v in table.locator('tbody td[data-col="avg_value"]').evaluate_all(
        "tds => tds.map(td => td.dataset.v)")]
    assert values == sorted(values, reverse=True) and len(values) == 17
    assert table.locator('th[aria-sort="descending"] button').inner_text().startswith("avg value")
    page.keyboard.press("Enter")  # again: ascending
    values = [float(v) for v in table.locator('tbody td[data-col="avg_value"]').evaluate_all(
        "tds => tds.map(td => td.dataset.v)")]
    assert values == sorted(values)
    # filter metrics by text, then drop a benchmark and an aggregation
    page.fill("#metric-filter", "cleme")
    labels = table.locator('tbody td[data-col="label"]').all_inner_texts()
    assert sorted(labels) == ["CLEME-dep", "CLEME-ind", "CLEME2.0-dep", "CLEME2.0-ind"]
    assert table.locator('th button[data-key="GJG15/EW/pearson"]').count() == 1
    page.locator('input[data-filter="benchmarks"][value="GJG15"]').uncheck()
    assert table.locator('th button[data-key="GJG15/EW/pearson"]').count() == 0
    page.locator('input[data-filter="aggregations"][value="trueskill"]').uncheck()
    assert page.locator('table[data-table="board-trueskill"]').count() == 0
    assert errors == []


def test_board_numbers_and_task_view(browser, board_page):
    """The values shown equal the CSV's (full precision in data-v, 3 decimals as text); a cell
    links to its task, whose bars print every metric's value and cluster."""
    import csv

    rows = list(csv.DictReader((REPO / "experiments" / "results" / "leaderboard.csv").open(encoding="utf-8")))
    want = {r["label"]: float(r["value"]) for r in rows
            if (r["aggregation"], r["benchmark"], r["target"], r["statistic"]) == ("default", "GJG15", "EW", "pearson")}
    page, errors, _ = open_page(browser, board_page)
    cells = page.locator('table[data-table="board-default"] tbody tr')
    shown = {}
    for i in range(cells.count()):
        tr = cells.nth(i)
        td = tr.locator('td[data-col="GJG15/EW/pearson"]')
        shown[tr.locator('td[data-col="label"]').inner_text()] = (float(td.get_attribute("data-v")), td.inner_text())
    assert {k: v[0] for k, v in shown.items()} == want
    assert all(text.startswith(f"{want[k]:.3f} [") for k, (_, text) in shown.items())
    page.locator('table[data-table="board-default"] td[data-col="GJG15/EW/pearson"] a').first.click()
    page.wait_for_selector("#view-task")
    assert "GJG15/EW/pearson" in page.locator("h2").inner_text()
    assert page.locator("#view-task svg text").count() >= 2 * 17
    assert errors == []


def test_report_numbers_equal_results_json(browser, runs):
    base, pages = runs
    for name in ("single", "sweep"):
        page, errors, requests = open_page(browser, pages[name])
        assert errors == [] and requests == [], (name, errors, requests)
        results = [json.loads(p.read_text()) for p in sorted((base / name).rglob("results.json"))]
        want = sorted((r["aggregation"], h, c["pearson"], c["spearman"]) for r in results for h, c in r["system"].items())
        table = page.locator('table[data-table="system"] tbody tr')
        got = []
        for i in range(table.count()):
            tr = table.nth(i)
            agg, human = (tr.locator(f'td[data-col="{k}"]').inner_text() for k in ("aggregation", "human"))
            r, rho = (float(tr.locator(f'td[data-col="{k}"]').get_attribute("data-v")) for k in ("pearson", "spearman"))
            assert tr.locator('td[data-col="pearson"]').inner_text() == f"{r:.3f}"
            got.append((agg, human, r, rho))
        assert sorted(got) == want and len(want) == 2 * len(results)
        assert page.locator("#problems").count() == 0
    # the task view's agreement matrix, counted by the page from the two score vectors, against
    # results.json's pairwise accuracy (no tied system scores here: PA = agreeing pairs / all pairs)
    page, errors, _ = open_page(browser, pages["single"], "#run/0")
    result = json.loads(next((base / "single").rglob("results.json")).read_text())
    for i, (human, c) in enumerate(result["system"].items()):
        agree, total = map(int, re.match(r"(\d+) of (\d+) system pairs", page.locator(
            'p.note:text-matches("system pairs ordered alike")').nth(i).inner_text()).groups())
        assert total == 13 * 12 // 2 and agree / total == pytest.approx(c["pairwise_accuracy"], abs=1e-12)
    assert errors == []


def test_report_sorting_filtering_and_sentences(browser, runs, data_root):
    base, pages = runs
    page, errors, _ = open_page(browser, pages["sweep"])
    page.locator('input[data-filter="aggregations"][value="average"]').uncheck()
    aggs = page.locator('table[data-table="system"] td[data-col="aggregation"]').all_inner_texts()
    assert aggs == ["default", "default"]
    page.locator('table[data-table="system"] th button[data-key="pearson"]').click()  # descending first
    values = [float(v) for v in page.locator('table[data-table="system"] td[data-col="pearson"]').evaluate_all(
        "tds => tds.map(td => td.dataset.v)")]
    assert values == sorted(values, reverse=True)
    # the sentence view of the single run: the first (most disagreeing) pair's texts
    page, errors, _ = open_page(browser, pages["single"], "#sentences/0")
    first = page.locator("button.pair").first
    n = int(first.get_attribute("data-sentence"))
    first.click()
    from gec_meta.data.datasets import load_gjg15

    ds = load_gjg15(root=data_root)
    detail = page.locator("#sentence-detail")
    assert detail.locator('[data-role="source"]').inner_text().endswith(ds.sources[n])
    better, worse = page.locator('table[data-table="pairs-ranking"] tbody tr').first.locator("td.text").all_inner_texts()[:2]
    for system in (better, worse):
        node = detail.locator(f'[data-role="hypothesis"][data-system="{system}"] .txt')
        kept = node.evaluate("e => Array.from(e.childNodes).filter(n => n.nodeName !== 'DEL')"
                             ".map(n => n.textContent).join('')")
        assert " ".join(kept.split()) == " ".join(ds.hypotheses[ds.systems.index(system)][n].split())
    assert detail.locator('[data-role="reference"]').count() >= 1
    # search by number
    page.fill("#sentence-search", "7")
    assert detail.locator('[data-role="source"]').inner_text().endswith(ds.sources[7])
    assert errors == []


def test_page_of_a_folder_with_missing_parts(browser, runs, tmp_path):
    base, _ = runs
    folder = tmp_path / "mixed"
    shutil.copytree(base / "single", folder / "good")
    (folder / "failed").mkdir()
    (folder / "failed" / "run.log").write_text("boom\n")
    (folder / "old").mkdir()
    (folder / "old" / "results.json").write_text('{"format_version": 2, "system": {"h": {"pearson": 0.5}}, "sentence": {}}')
    out = tmp_path / "mixed.html"
    proc = subprocess.run([sys.executable, "-m", "gec_meta.report", str(folder), "--html", str(out)], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    page, errors, requests = open_page(browser, out)
    problems = page.locator("#problems").inner_text()
    assert "failed: no results.json" in problems and "old: results.json has no 'system_scores'" in problems
    for view in ("run/1", "sentences/1", "robustness", "about"):
        page.evaluate(f"location.hash = '#{view}'")
        page.wait_for_selector(f'main[data-view="{view.split("/")[0]}"]')
        assert page.locator("main").inner_text().strip()
    assert errors == [] and requests == []


def test_board_task_scatter_from_board_data(browser, tmp_path):
    """A board with its system scores (leaderboard.json): the task view plots the chosen metric
    against the humans with system names, and counts agreeing pairs: m2 = (2, 1, 3, 5, 4) against
    h = (1, 2, 3, 4, 5) reverses S1/S2 and S4/S5, so 8 of 10 pairs agree (hand count)."""
    from test_board_data import _toy_boards

    from gec_meta.report.html import leaderboard_page

    cfg, boards = _toy_boards()
    out = tmp_path / "toy.html"
    out.write_text(leaderboard_page(boards, cfg.to_mapping(), "# toy"), encoding="utf-8")
    page, errors, requests = open_page(browser, out, "#task/default/B%2Fh%2Fpearson/m2")
    scatter = page.locator("#task-scatter")
    labels = scatter.locator("svg text").all_text_contents()
    assert {"S1", "S2", "S3", "S4", "S5"} <= set(labels)
    assert "8 of 10 system pairs ordered alike" in scatter.inner_text()
    page.select_option("#task-metric", "m1")
    page.wait_for_function("location.hash.endsWith('/m1')")
    assert "10 of 10 system pairs ordered alike" in page.locator("#task-scatter").inner_text()
    assert errors == [] and requests == []


def test_board_csv_download_is_the_committed_csv(browser, board_page):
    """The page's leaderboard.csv link gives back the CSV it was rendered from, byte for byte."""
    page = browser.new_page(accept_downloads=True)
    page.goto(board_page.resolve().as_uri())
    with page.expect_download() as download:
        page.locator("a.dl", has_text="leaderboard.csv").click()
    got = Path(download.value.path()).read_text(encoding="utf-8")
    assert got == (REPO / "experiments" / "results" / "leaderboard.csv").read_text(encoding="utf-8")
