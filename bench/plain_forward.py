"""The plain script gec-meta's encoder is measured against (``bench/bench_gpu.py``).

    python bench/plain_forward.py --model DIR --texts texts.json --layer 9 [--batch-size 64]

What a user would write with ``transformers`` alone: load the tokenizer and the model, then for
each batch of 64 texts (sorted by length, as bert_score does) tokenise, run the model with
``output_hidden_states=True``, keep ``hidden_states[layer]`` on the device, and synchronise once
at the end.  It runs twice on the same texts: the full forward pass (the reference of the
issue's table), then one stopped at the layer (``encoder.layer`` truncated, as bert_score does).
Prints one JSON line: seconds of imports, model loading and both passes, and the text count.
"""

from __future__ import annotations

import time

START = time.perf_counter()

import json  # noqa: E402


def main() -> None:
    from arguments import Parser, count, device

    ap = Parser()
    ap.add_argument("--model", required=True, help="local model folder (config, weights, tokenizer)")
    ap.add_argument("--texts", required=True, help="JSON list of the distinct texts")
    ap.add_argument("--layer", type=count(0), required=True, help="hidden-state index used")
    ap.add_argument("--batch-size", type=count(1), default=64)
    ap.add_argument("--max-length", type=count(1), default=512)
    ap.add_argument("--device", type=device, default="auto")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    args = ap.parse_args()

    import torch
    from transformers import AutoModel, AutoTokenizer

    t_imports = time.perf_counter()
    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModel.from_pretrained(args.model).eval().to(getattr(torch, args.dtype)).to(device)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    sync()
    t_load = time.perf_counter()
    with open(args.texts, encoding="utf-8") as fh:
        texts = sorted((t.strip() for t in json.load(fh)), key=len, reverse=True)

    def run(hidden_state) -> float:
        start = time.perf_counter()
        kept = []
        with torch.inference_mode():
            for i in range(0, len(texts), args.batch_size):
                enc = tok(texts[i:i + args.batch_size], padding=True, truncation=True,
                          max_length=args.max_length, return_tensors="pt").to(device)
                kept.append(hidden_state(enc))
        sync()
        return time.perf_counter() - start

    full = run(lambda enc: model(**enc, output_hidden_states=True).hidden_states[args.layer])
    model.encoder.layer = torch.nn.ModuleList(list(model.encoder.layer)[:args.layer])  # as bert_score
    stopped = run(lambda enc: model(**enc).last_hidden_state)
    print(json.dumps({"texts": len(texts), "device": device, "imports_s": t_imports - START,
                      "load_s": t_load - t_imports, "forward_s": full, "forward_stopped_s": stopped,
                      "inside_s": time.perf_counter() - START}))


if __name__ == "__main__":
    main()
