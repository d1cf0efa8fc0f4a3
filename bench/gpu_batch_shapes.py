"""Which forward-pass shapes give a text the same bits on this device?  (The measurement behind
:func:`gec_meta.kernels.pass_rows`.)

    python bench/gpu_batch_shapes.py [--shapes minilm,base,large] [--lengths 5,12,40,97,300] [--json OUT]

For random BERTs of MiniLM, bert-base and bert-large shape (float32, fixed seeds) and texts of
random token ids of each length, in a plain transformers forward pass (no gec-meta code):

* ``fixed_shape``: 32 texts in a pass of 64 rows, and the same texts in reverse order at rows
  32-63 of another pass of 64 whose other rows are other texts: the same bits?
* ``repeats``: a text in a pass of 64 copies of itself, against its row in the first pass;
* ``rows_equal_to_64``: the first texts in passes of 1-128 rows (the pass's first rows), against
  their rows in the pass of 64.

On the CPU any pass of >= 256 tokens agrees (gec_meta.encoders.batching); on an H200 only
``fixed_shape`` and ``repeats`` did (bench/RESULTS_GPU.md).  Run-to-run: the same pass three
times.  Minutes on a CPU for the default lengths; seconds on a GPU.
"""

from __future__ import annotations

import argparse
import json
import time

SHAPES = {"minilm": (384, 6, 12, 1536), "base": (768, 12, 12, 3072), "large": (1024, 24, 16, 4096)}
ROWS = (1, 2, 4, 7, 8, 16, 32, 48, 63, 96, 128)


def main(argv: list[str] | None = None) -> dict:
    import torch
    from transformers import BertConfig, BertModel

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default="minilm,base,large")
    ap.add_argument("--lengths", default="5,12,40,97,300")
    ap.add_argument("--json", default=None, help="write the results here")
    args = ap.parse_args(argv)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    out: dict = {"device": torch.cuda.get_device_name(0) if dev == "cuda" else "cpu", "torch": torch.__version__}

    for shape in args.shapes.split(","):
        hidden, layers, heads, inter = SHAPES[shape]
        torch.manual_seed(0)
        model = BertModel(BertConfig(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                                     intermediate_size=inter)).eval().to(dev)
        out["attention"] = model.config._attn_implementation

        def run(ids):
            with torch.inference_mode():
                return model(input_ids=ids.to(dev), attention_mask=torch.ones_like(ids).to(dev)).last_hidden_state.cpu()

        gen = torch.Generator().manual_seed(1)
        res, start = {}, time.perf_counter()
        for length in map(int, args.lengths.split(",")):
            ids, other = (torch.randint(1000, 20000, (64, length), generator=gen) for _ in range(2))
            first = run(ids)
            second = run(torch.cat([other[:32], ids[:32].flip(0)]))
            alone = run(ids[3:4].repeat(64, 1))
            rows = {n: torch.equal(run(torch.cat([ids, other])[:n])[: min(n, 4)], first[: min(n, 4)]) for n in ROWS}
            res[length] = {"fixed_shape": torch.equal(first[:32], second[32:].flip(0)),
                           "fixed_shape_max_diff": float((first[:32] - second[32:].flip(0)).abs().max()),
                           "repeats": torch.equal(alone[0], first[3]) and torch.equal(alone[17], first[3]),
                           "rows_equal_to_64": rows}
            print(shape, length, res[length], flush=True)
        out[shape] = res
        out[f"{shape}_s"] = round(time.perf_counter() - start, 2)
        ids = torch.randint(1000, 20000, (64, 40), generator=gen)
        out[f"{shape}_run_to_run"] = all(torch.equal(run(ids), run(ids)) for _ in range(3))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    print(json.dumps({k: v for k, v in out.items() if not isinstance(v, dict)}))
    return out


if __name__ == "__main__":
    main()
