"""What the HTML report (:mod:`gec_meta.report.html`) shows of a run or sweep folder, as JSON-ready data.

For every run (a folder with ``results.json``) it reads the result, the run's ``config.yaml``
and its ``sentence_scores.tsv`` (:func:`gec_meta.formats.read_sentence_scores`), and, through the package's dataset loaders, the dataset's texts (sources,
system outputs, references) and human system scores.  From the sentence scores and the
dataset's judgments it finds the sentence pairs on which the metric and the humans disagree
most (:func:`disagreements`).  Nothing here stops the page: what is missing or unreadable (a
run that failed, a result of an older format, a dataset that cannot be loaded, an empty sweep)
becomes a note that the page shows.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

import numpy as np

#: Keys a ``results.json`` needs for each view of the page (a missing one is named on it).
VIEW_KEYS = {"summary": ("metric", "dataset", "system"), "task": ("system_scores",)}
#: The most disagreeing pairs kept per judgment aspect.
MAX_PAIRS = 100


def read_sentence_scores(path: Path) -> tuple[list[str], np.ndarray]:
    """(systems in file order, scores of shape (S, N)) of a ``sentence_scores.tsv``, read by
    :func:`gec_meta.formats.read_sentence_scores` (columns by name, the format version
    checked); ``nan`` = no score.

    Raises:
        DataError: naming the file and line.
    """
    from gec_meta.formats import read_sentence_scores as read_rows

    cells: dict[str, dict[int, float]] = {}
    for row in read_rows(path):
        cells.setdefault(row.system, {})[row.sentence] = row.score
    n = 1 + max((max(c) for c in cells.values() if c), default=-1)
    scores = np.full((len(cells), n), np.nan)
    for s, per in enumerate(cells.values()):
        scores[s, list(per)] = list(per.values())
    return list(cells), scores


def load_dataset(config_text: str):
    """(dataset, references or None) of a run's ``config.yaml`` text, data from
    ``$GEC_META_DATA`` (else the config's ``data_dir``).  Only the package's own loaders
    (``_target_`` under ``gec_meta.data.``) are built: a report runs no code named by a folder.

    Raises:
        GecMetaError / OSError / ValueError: the dataset cannot be loaded (the caller notes why).
    """
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    from gec_meta.config import check_instance, instantiate_as
    from gec_meta.data.datasets import Dataset
    from gec_meta.data.refsets import References
    from gec_meta.errors import ConfigError

    cfg = OmegaConf.create(config_text)
    for key in ("dataset", "refset"):
        target = str(OmegaConf.select(cfg, f"{key}._target_", default="") or "")
        if key == "dataset" and not target:
            raise ConfigError("config.yaml has no dataset._target_")
        if target and not target.startswith("gec_meta.data."):
            raise ConfigError(f"config.yaml: {key}._target_ {target!r} is not one of gec-meta's data loaders")
    root = Path(os.environ.get("GEC_META_DATA") or str(OmegaConf.select(cfg, "data_dir", default="") or "data"))
    dataset = instantiate_as(cfg.dataset, Dataset, "dataset", root=root)
    refs = None
    if OmegaConf.select(cfg, "refset._target_", default=None):
        refs = check_instance(instantiate(cfg.refset, _partial_=True)(dataset=dataset, root=root), References,
                              "refset", cfg.refset)
    return dataset, refs


def dataset_data(dataset, refs) -> dict:
    """The texts and human system scores of a dataset, JSON-ready: ``sources`` (N),
    ``systems`` (S), ``hypotheses`` (S, N), ``references`` (R, N) with ``reference_names``,
    ``human`` (name -> S values)."""
    references, names = ((refs.texts, refs.names) if refs is not None else
                         (dataset.references, dataset.reference_names))
    return {"name": dataset.name, "setting": dataset.setting, "sources": list(dataset.sources),
            "systems": list(dataset.systems), "hypotheses": [list(h) for h in dataset.hypotheses],
            "references": [list(r) for r in references], "reference_names": list(names),
            "human": {h: [float(v) for v in np.asarray(x, dtype=np.float64)] for h, x in dataset.human.items()}}


def disagreements(dataset, systems: list[str], scores: np.ndarray, limit: int = MAX_PAIRS) -> dict[str, list[dict]]:
    """aspect -> the judged sentence pairs on which the metric and the humans disagree most.

    A pair is two systems judged in the same group (SEEDA/GJG15 ranking item, GMEG rating of a
    sentence) whose human judgment is not a tie while the metric orders them the other way; pairs
    are sorted by the metric's margin |m_a - m_b| (largest first, then group and systems).

    Args:
        systems: shape (S,): the systems of ``scores`` (``sentence_scores.tsv`` order).
        scores: shape (S, N): the metric's sentence scores.

    Returns:
        ``[{"sentence": n, "group": g, "better": system the humans prefer, "worse": the other, "kind":
        "ranking" | "rating", "human": [the judges' rank (ranking, lower = better) or rating of
        each], "metric": [m_better, m_worse]}]``, at most ``limit`` each, each (sentence, pair)
        once (the group of its largest margin).
    """
    from gec_meta.meta.wmt_stats import sentence_groups

    order = [systems.index(s) if s in systems else -1 for s in dataset.systems]
    if -1 in order:
        return {}
    m_all = scores[order]  # (S, N) in dataset order
    out = {}
    for aspect, groups in sentence_groups(dataset).items():
        h = groups.human  # (G, S)
        m = m_all[:, groups.lines].T  # (G, S)
        dh = h[:, :, None] - h[:, None, :]  # (G, S, S): > 0 where the humans prefer the first system
        dm = m[:, :, None] - m[:, None, :]
        with np.errstate(invalid="ignore"):
            bad = (dh > 0) & (dm < 0)
        g, a, b = np.nonzero(bad)
        margin = -dm[g, a, b]
        names, rows, seen = dataset.systems, [], set()
        for k in np.lexsort((b, a, g, -margin)):
            pair = (int(groups.lines[g[k]]), int(a[k]), int(b[k]))  # several judges of one sentence: once
            if pair in seen:
                continue
            seen.add(pair)
            # rankings are stored as minus the rank (higher = better): shown as the judges' ranks
            sign = -1.0 if groups.kind == "ranking" else 1.0
            rows.append({"sentence": pair[0], "group": int(g[k]), "better": names[a[k]], "worse": names[b[k]],
                         "kind": groups.kind, "human": [sign * float(h[g[k], a[k]]), sign * float(h[g[k], b[k]])],
                         "metric": [float(m[g[k], a[k]]), float(m[g[k], b[k]])]})
            if len(rows) == limit:
                break
        out[aspect] = rows
    return out


def _run_folders(folder: Path) -> tuple[list[Path], list[Path]]:
    """(folders with a results.json, job folders without one: a failed or unfinished run)."""
    done = sorted({p.parent for p in folder.rglob("results.json")})
    jobs = {p.parent for name in ("run.log", "config.yaml") for p in folder.rglob(name) if p.parent.name != ".hydra"}
    jobs |= {p.parent.parent for p in folder.rglob(".hydra/config.yaml")}
    return done, sorted(j for j in jobs - set(done) if not any(d.is_relative_to(j) and d != j for d in done))


def folder_data(folder: Path) -> dict:
    """Everything the report page shows of ``folder`` (a run or a sweep).

    Returns:
        ``{"folder", "runs": [{"id", "path", "result", "config", "dataset", "sentence_scores",
        "disagreements", "notes"}], "datasets": key -> :func:`dataset_data` or ``{"error"}``,
        "problems": [lines], "csv": file name -> text}``.

    Raises:
        DataError: ``folder`` is not a folder.
    """
    from gec_meta.errors import DataError, GecMetaError
    from gec_meta.report.tables import read_result

    if not folder.is_dir():
        raise DataError("is not a folder of runs", folder)
    done, failed = _run_folders(folder)
    problems = [f"{_rel(j, folder)}: no results.json (the run failed or has not finished; see its run.log)"
                for j in failed]
    runs, datasets, loaded = [], {}, {}
    for run_dir in done:
        rel = _rel(run_dir, folder)
        try:
            result = read_result(run_dir / "results.json")
        except GecMetaError as exc:
            problems.append(f"{rel}/results.json: {exc}")
            continue
        notes = [f"results.json has no {k!r} (an older format?): the {view} view leaves it out"
                 for view, keys in VIEW_KEYS.items() for k in keys if k not in result]
        entry = {"id": len(runs), "path": rel, "result": result, "config": None, "dataset": None,
                 "sentence_scores": None, "disagreements": {}, "notes": notes}
        config_path = run_dir / "config.yaml"
        if config_path.is_file():
            entry["config"] = config_path.read_text(encoding="utf-8", errors="replace")
            key = _dataset_key(entry["config"])
            if key not in loaded:
                try:
                    loaded[key] = load_dataset(entry["config"])
                    datasets[key] = dataset_data(*loaded[key])
                except Exception as exc:  # noqa: BLE001 - a display: any reason (YAML, Hydra, data) is shown, not raised
                    loaded[key] = None
                    why = str(exc) if isinstance(exc, GecMetaError) else f"{type(exc).__name__}: {exc}"
                    datasets[key] = {"error": f"{rel}/config.yaml: {why.removeprefix('config.yaml: ')}"}
            entry["dataset"] = key
        else:
            notes.append("no config.yaml: the dataset's texts and human scores cannot be loaded")
        tsv = run_dir / "sentence_scores.tsv"
        if tsv.is_file():
            try:
                systems, scores = read_sentence_scores(tsv)
                entry["sentence_scores"] = {"systems": systems, "scores": scores.tolist()}
                if loaded.get(entry["dataset"]) is not None:
                    entry["disagreements"] = disagreements(loaded[entry["dataset"]][0], systems, scores)
            except GecMetaError as exc:
                notes.append(str(exc))
        else:
            notes.append("no sentence_scores.tsv (meta_eval.sentence_scores=false): no sentence view")
        runs.append(entry)
    if not runs:
        problems.append(f"{folder}: no readable results.json under this folder"
                        + (" (an empty sweep?)" if not failed else ""))
    return {"folder": str(folder), "runs": runs, "datasets": datasets, "problems": problems,
            "csv": _summary_csv([r["result"] for r in runs])}


def _rel(path: Path, folder: Path) -> str:
    return "." if path == folder else path.relative_to(folder).as_posix()


def _dataset_key(config_text: str) -> str:
    """Runs with the same dataset and refset config share one copy of the texts."""
    from omegaconf import OmegaConf

    from gec_meta.cache import text_hash

    try:
        cfg = OmegaConf.create(config_text)
        return text_hash(OmegaConf.to_yaml(OmegaConf.masked_copy(cfg, [k for k in ("dataset", "refset", "data_dir")
                                                                       if k in cfg])))
    except Exception:  # an unparsable config.yaml: its own key, and load_dataset says why
        return text_hash(config_text)


def _summary_csv(results: list[Mapping]) -> dict[str, str]:
    """The ``summary_*.csv`` texts of :mod:`gec_meta.report.tables` for these results."""
    from gec_meta.report.tables import summary_tables

    return {f"summary_{name}.csv": text for name, text in summary_tables(results, "csv").items()}
