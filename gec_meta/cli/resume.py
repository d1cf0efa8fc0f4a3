"""A job's output folder: written as one unit, and reused only while everything it came from
is unchanged.

A finished job's folder holds :data:`OUTPUT_FILES`: ``results.json``, ``results.md``,
``timing.json``, ``config.yaml``, ``sentence_scores.tsv`` (``meta_eval.sentence_scores``) and
``inputs.json``, the record of the unit::

    {"config_id": <sha256 of the resolved config>,
     "metric": <the metric's signature: options, model identity, library versions>,
     "code": <gec-meta's code version: every Python file of the package>,
     "inputs": {<absolute path>: <sha256 of its bytes>, ...},
     "outputs": {<file name>: <sha256 of its bytes>, ..., "timing.json": null}}

``inputs`` lists the files the job's readers read (:func:`gec_meta.data.io.recording_inputs`):
data files, M2 and judgment files, score files of ``metric=from_files``; ``outputs`` every other
file of the unit, ``results.json`` included (``timing.json`` without a digest: its times vary
from run to run, and ``inputs.json``, like ``results.json``, is byte-identical across runs of a
job).  A sidecar rather than a key of ``results.json``, so that result files stay
byte-identical across runs and machines (the paths are absolute).

Writing (:func:`publish`): every file goes first into a staging folder (``.partial-XXXX``)
inside the job folder; then the previous ``results.json`` is removed (from here on the folder
holds no result), the other files replace theirs, outputs of an earlier run that this one does
not write are removed, and ``results.json`` comes last.  A job that dies at any point (a full
disk, ``ulimit -f``, a kill) leaves the previous unit untouched or a folder without
``results.json``; a failed write is one error naming the file, and nothing temporary is left.

Reuse (:func:`stale_reason`): only if the config, every input file, every output file (its
sha256 against the record: a file of another run beside ``results.json`` is caught), gec-meta's
code (:func:`gec_meta.cache.code.package_code_version`: a result of older code is never kept,
even under the same version number; the rerun reads every statistic whose own key did not
change from the cache) and the metric's identity are unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Mapping

from gec_meta.cache.code import package_code_version
from gec_meta.data.io import file_digest
from gec_meta.outputs import output_error, write_output

INPUTS_FILE = "inputs.json"
RESULTS_FILE = "results.json"
#: Every file of a job's unit (``inputs.json``, the record, is written just before ``results.json``).
OUTPUT_FILES = (RESULTS_FILE, "results.md", "sentence_scores.tsv", "timing.json", "config.yaml", INPUTS_FILE)
#: Files of the unit whose content varies from run to run: recorded without a digest (a file of
#: another unit can only get there by hand: publish moves every file with its results.json).
VOLATILE = ("timing.json",)
STAGING_PREFIX = ".partial-"


def inputs_record(config_id: str, metric_signature: str, inputs: Mapping[str, str],
                  outputs: Mapping[str, str | None] | None = None) -> str:
    """The text of ``inputs.json`` (``outputs``: file name -> sha256 of the unit's other files,
    None for :data:`VOLATILE` ones)."""
    return json.dumps(
        {"config_id": config_id, "metric": metric_signature, "code": package_code_version(),
         "inputs": dict(sorted(inputs.items())), "outputs": dict(sorted((outputs or {}).items()))},
        indent=1,
    ) + "\n"


def publish(out_dir: str | Path, files: Mapping[str, str], config_id: str, metric_signature: str,
            inputs: Mapping[str, str]) -> None:
    """Write a finished job's files into ``out_dir`` as one unit (module docstring).

    Args:
        files: file name (one of :data:`OUTPUT_FILES`, ``results.json`` required) -> text.
        config_id, metric_signature, inputs: what ``inputs.json`` records.

    Raises:
        OutputError: naming the file that could not be written (full disk, ``ulimit -f``,
            read-only folder); the folder then still holds its previous unit.
    """
    out_dir = Path(out_dir)
    if RESULTS_FILE not in files or not set(files) < set(OUTPUT_FILES):
        raise ValueError(f"a job's files are {OUTPUT_FILES} with {RESULTS_FILE}, got {sorted(files)}")
    digests = {name: None if name in VOLATILE else hashlib.sha256(text.encode("utf-8")).hexdigest()
               for name, text in files.items()}
    files = {**files, INPUTS_FILE: inputs_record(config_id, metric_signature, inputs, digests)}
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(dir=out_dir, prefix=STAGING_PREFIX))
    except OSError as exc:
        raise output_error(out_dir, exc) from None
    try:
        # Staged as NAME.part: a staging folder left by a killed job holds no results.json.
        for name, text in files.items():
            write_output(stage / f"{name}.part", text, named=out_dir / name)
        name = RESULTS_FILE
        try:
            (out_dir / RESULTS_FILE).unlink(missing_ok=True)  # the folder holds no result from here on
            for name in OUTPUT_FILES:
                if name not in files:
                    (out_dir / name).unlink(missing_ok=True)  # of an earlier run, not part of this unit
            for name in [n for n in OUTPUT_FILES if n in files and n != RESULTS_FILE] + [RESULTS_FILE]:
                os.replace(stage / f"{name}.part", out_dir / name)
        except OSError as exc:
            raise output_error(out_dir / name, exc) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    for leftover in out_dir.glob(STAGING_PREFIX + "*"):  # of jobs killed while writing here
        shutil.rmtree(leftover, ignore_errors=True)


def _load_json(path: Path) -> tuple[dict | None, str | None]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, f"{path} is missing"
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return None, f"{path} is unreadable or truncated ({type(exc).__name__}: {exc})"
    if not isinstance(value, dict):
        return None, f"{path} is not a JSON object"
    return value, None


def stale_reason(
    out_dir: str | Path, config_id: str, metric_signature: Callable[[], str]
) -> tuple[dict | None, str | None]:
    """Whether the finished job in ``out_dir`` can be reused.

    Args:
        out_dir: the job's output folder.
        config_id: the hash of the job's resolved config now.
        metric_signature: computes the metric's signature now (called only when everything
            else matches).

    Returns:
        (the previous results, None) when the job can be skipped, else (None, why not) —
        a sentence naming the file or input that differs.
    """
    out_dir = Path(out_dir)
    previous, problem = _load_json(out_dir / RESULTS_FILE)
    if problem:
        return None, problem
    from gec_meta.formats import RESULTS_VERSION, VERSION_KEY

    if previous.get(VERSION_KEY) != RESULTS_VERSION:  # written by another gec-meta (CHANGELOG.md)
        return None, (f"{out_dir / RESULTS_FILE} is of format {previous.get(VERSION_KEY) or 1}, this gec-meta writes "
                      f"format {RESULTS_VERSION}")
    if previous.get("config_id") != config_id:
        return None, "the config changed"
    record, problem = _load_json(out_dir / INPUTS_FILE)
    if problem:
        return None, f"no record of the inputs it read ({problem})"
    if record.get("config_id") != config_id or not isinstance(record.get("inputs"), dict):
        return None, f"{out_dir / INPUTS_FILE} belongs to another run"
    problem = _outputs_problem(out_dir, record.get("outputs"))
    if problem:
        return None, problem
    for path, digest in record["inputs"].items():
        now = file_digest(path)
        if now is None:
            return None, f"input {path} is gone"
        if now != digest:
            return None, f"input {path} changed (sha256 {digest[:12]} -> {now[:12]})"
    code = package_code_version()
    if record.get("code") != code:
        return None, (f"gec-meta's code changed since the job ran (code version {record.get('code') or 'not recorded'}"
                      f" -> {code})")
    signature = metric_signature()
    if record.get("metric") != signature:
        return None, f"the metric changed ({record.get('metric')} -> {signature})"
    return previous, None


def _outputs_problem(out_dir: Path, outputs) -> str | None:
    """Why the files beside ``results.json`` are not the unit ``outputs`` records, or None."""
    if not isinstance(outputs, dict) or RESULTS_FILE not in outputs or not set(outputs) < set(OUTPUT_FILES):
        return f"{out_dir / INPUTS_FILE} does not record the job's output files (written by an older version)"
    for name in OUTPUT_FILES:
        if name == INPUTS_FILE:
            continue
        path = out_dir / name
        if name not in outputs:
            if os.path.lexists(path):
                return f"{path} belongs to another run"
            continue
        now = file_digest(path)
        if now is None:
            return f"{path} is missing"
        if outputs[name] is not None and now != outputs[name]:
            return f"{path} belongs to another run or was changed (sha256 {str(outputs[name])[:12]} -> {now[:12]})"
    return None
