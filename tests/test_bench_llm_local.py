"""bench/bench_llm_local.py (batched vs batch-1 local generation) runs on the CPU: a tiny random
Llama, the byte-level stand-in tokenizer, two prompts."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_bench_llm_local_prints_its_table(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("bench_llm_local", REPO / "bench" / "bench_llm_local.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.main(["--shape", "tiny", "--prompts", "2", "--batch-sizes", "2", "--device", "cpu",
                "--tokenizer", str(tmp_path / "none"), "--json", str(tmp_path / "rows.json")])
    out = capsys.readouterr().out
    assert "tokenizer byte-level stand-in" in out and "| batch size | prompts/s |" in out
    rows = json.loads((tmp_path / "rows.json").read_text())["rows"]
    assert [r["batch_size"] for r in rows] == [1, 2]
    assert all(r["equal_to_batch_1"] == 2 and r["prompts"] == 2 for r in rows)
    assert rows[0]["speedup"] == 1.0
