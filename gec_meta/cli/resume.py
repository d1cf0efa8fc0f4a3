"""When may a finished job be skipped?  Resuming a sweep reuses a job's ``results.json`` only if
the config, every input file the job read, and the metric's identity are unchanged.

Next to ``results.json`` each job writes ``inputs.json``::

    {"config_id": <sha256 of the resolved config>,
     "metric": <the metric's signature: options, model identity, library versions>,
     "inputs": {<absolute path>: <sha256 of its bytes>, ...}}

``inputs`` lists the files the job's readers read (:func:`gec_meta.data.io.recording_inputs`):
data files, M2 and judgment files, score files of ``metric=from_files``.  A sidecar rather
than a key of ``results.json``, so that result files stay byte-identical across runs and
machines (the paths are absolute).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Mapping

from gec_meta.data.io import file_digest

INPUTS_FILE = "inputs.json"
RESULTS_FILE = "results.json"

def inputs_record(config_id: str, metric_signature: str, inputs: Mapping[str, str]) -> str:
    """The text of ``inputs.json``."""
    return json.dumps(
        {"config_id": config_id, "metric": metric_signature, "inputs": dict(sorted(inputs.items()))},
        indent=1,
    ) + "\n"


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
    if previous.get("config_id") != config_id:
        return None, "the config changed"
    record, problem = _load_json(out_dir / INPUTS_FILE)
    if problem:
        return None, f"no record of the inputs it read ({problem})"
    if record.get("config_id") != config_id or not isinstance(record.get("inputs"), dict):
        return None, f"{out_dir / INPUTS_FILE} belongs to another run"
    for path, digest in record["inputs"].items():
        now = file_digest(path)
        if now is None:
            return None, f"input {path} is gone"
        if now != digest:
            return None, f"input {path} changed (sha256 {digest[:12]} -> {now[:12]})"
    signature = metric_signature()
    if record.get("metric") != signature:
        return None, f"the metric changed ({record.get('metric')} -> {signature})"
    return previous, None
