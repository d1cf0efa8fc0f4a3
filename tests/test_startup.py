"""Start-up: a run imports only what it uses (issue 26 item 4).

A run without a neural component imports no torch, transformers, sklearn or sympy (seconds of
start-up: transformers alone pulls in torch.distributed, sympy and scipy.optimize); PT-M2 with
M2 references and BERTScore import neither spaCy nor errant (a GPU machine then needs no
spaCy wheels).  Each check runs the real command in a fresh interpreter and reads its
``sys.modules`` at the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NEURAL = ("torch", "transformers", "sklearn", "sympy")
SPACY = ("spacy", "errant", "thinc")

M2 = ("S a cat sat .\nA 0 1|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0\n\n"
      "S it is good .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n")

DRIVER = (
    "import json, sys\n"
    "out, argv = sys.argv[1], sys.argv[2:]\n"
    "try:\n"
    "    if argv[0] == 'gec-meta-run':\n"
    "        from gec_meta.cli.run import main\n"
    "        sys.argv = argv\n"
    "        main()\n"
    "    else:\n"
    "        from gec_meta.cli.main import main\n"
    "        while argv:\n"  # commands separated by '--then' run one after the other
    "            k = argv.index('--then') if '--then' in argv else len(argv)\n"
    "            assert main(argv[:k]) == 0\n"
    "            argv = argv[k + 1:]\n"
    "finally:\n"
    "    open(out, 'w').write(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
)


def imported(tmp_path: Path, *argv: str) -> set[str]:
    """Top-level packages in ``sys.modules`` after ``gec-meta-run ...`` or ``gec-meta ...`` (several
    ``gec-meta`` commands separated by ``--then`` run in the same interpreter)."""
    out = tmp_path / "modules.json"
    env = {**os.environ, "GEC_META_CACHE": str(tmp_path / "cache"),
           "GEC_META_DATA": os.environ.get("GEC_META_DATA", str(REPO / "data"))}
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(out), *argv], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return set(json.loads(out.read_text()))


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "src.txt").write_text("a cat sat .\nit is good .\n")
    (tmp_path / "hyp.txt").write_text("the cat sat .\nit was good .\n")
    (tmp_path / "same.txt").write_text("a cat sat .\nit is good .\n")
    (tmp_path / "ref.m2").write_text(M2)
    (tmp_path / "ref.txt").write_text("the cat sat .\nit is good .\n")
    return tmp_path


def test_m2_scoring_imports_no_neural_library(files):
    mods = imported(files, "score", "--src", "src.txt", "--hyp", "hyp.txt", "same.txt", "--ref", "ref.m2",
                    "--metric", "m2", "--json")
    assert not mods & set(NEURAL + SPACY), mods & set(NEURAL + SPACY)


def test_neural_scoring_imports_no_spacy(files):
    """PT-M2 with M2 references, then BERTScore, in one interpreter (one import of torch and
    transformers instead of two): neither imports spaCy or ERRANT."""
    pytest.importorskip("transformers")
    from gec_meta.encoders.testing import tiny_bert

    tiny_bert(files / "bert")
    argv = []
    for metric, ref in (("pt_m2", "ref.m2"), ("bertscore", "ref.txt")):
        argv += ["score", "--src", "src.txt", "--hyp", "hyp.txt", "same.txt", "--ref", ref, "--metric", metric,
                 "-c", f"encoder.model={files / 'bert'}", "-c", "encoder.layer=2", "--json", "--then"]
    mods = imported(files, *argv[:-1])
    assert {"torch", "transformers"} <= mods  # the models ran ...
    assert not mods & set(SPACY), mods & set(SPACY)  # ... without spaCy or ERRANT


def test_errant_run_imports_no_neural_library(tmp_path):
    """A whole cold job (spaCy parses, ERRANT, meta-evaluation) through the Hydra edge, on the
    tiny SEEDA-layout benchmark of tests/test_experiment_configs.py (what is imported does not
    depend on how many sentences are parsed)."""
    from test_experiment_configs import build_tiny_data

    data = build_tiny_data(tmp_path / "data")
    mods = imported(tmp_path, "gec-meta-run", "dataset=seeda", "metric=errant", f"data_dir={data}",
                    f"hydra.run.dir={tmp_path / 'run'}")
    assert "errant" in mods and (tmp_path / "run" / "results.json").is_file()  # the job ran
    assert not mods & set(NEURAL), mods & set(NEURAL)


@pytest.mark.slow
@pytest.mark.ci
def test_llm_dry_run_still_ends_the_job_cleanly(tmp_path):
    """gec-meta-run no longer imports the LLM evaluators' module at start-up; a dry run
    (metric.dry_run=true) still ends with its plan and no result, exit status 0. The plan counts
    each prompt's tokens with the model's tokenizer: a byte-level one with a chat template saved
    here (reading SmolLM2's from its GGUF file takes seconds of its own)."""
    pytest.importorskip("transformers")
    from test_experiment_configs import build_tiny_data
    from test_llm_batched import byte_chat_tokenizer

    byte_chat_tokenizer().save_pretrained(tmp_path / "chat-tokenizer")
    data = build_tiny_data(tmp_path / "data")  # the tiny SEEDA layout: the plan of a few prompts
    mods = imported(tmp_path, "gec-meta-run", "dataset=seeda", "metric=llm_s", "metric.dry_run=true",
                    f"llm.model={tmp_path / 'chat-tokenizer'}", f"data_dir={data}",
                    f"hydra.run.dir={tmp_path / 'run'}")
    assert "gec_meta" in mods and not (tmp_path / "run" / "results.json").exists()
    log = (tmp_path / "run" / "run.log").read_text()
    assert "nothing was scored" in log
