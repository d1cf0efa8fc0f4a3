"""Tiny randomly initialised models for tests (no downloads): a 2-layer BERT with a
hand-written WordPiece vocabulary and a 1+1-layer BART sharing that tokenizer."""

from __future__ import annotations

from pathlib import Path

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = (
    "the a an cat cats dog dogs sit sits sat on mat mats is are was were in of to and "
    "he she it they play plays role important our life which can not be substituted replaced "
    ". , ! ? ##s ##ed ##ing"
).split()


def write_vocab(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "vocab.txt"
    path.write_text("\n".join(SPECIAL + WORDS) + "\n", encoding="utf-8")
    return path


def make_tokenizer(folder: Path):
    """An uncased WordPiece BertTokenizer over :data:`WORDS` (transformers 4 and 5 APIs)."""
    import inspect

    from transformers import BertTokenizer

    vocab = write_vocab(folder)
    if "vocab" in inspect.signature(BertTokenizer.__init__).parameters:  # transformers >= 5
        tokens = vocab.read_text(encoding="utf-8").split()
        return BertTokenizer(vocab={t: i for i, t in enumerate(tokens)}, do_lower_case=True, model_max_length=64)
    return BertTokenizer(vocab_file=str(vocab), do_lower_case=True, model_max_length=64)


def tiny_bert(folder: str | Path, seed: int = 0, hidden: int = 32, layers: int = 2) -> Path:
    """Save a random BertModel (hidden 32, 2 layers) and an uncased WordPiece tokenizer."""
    import torch
    from transformers import BertConfig, BertModel

    folder = Path(folder)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(SPECIAL) + len(WORDS), hidden_size=hidden, num_hidden_layers=layers,
        num_attention_heads=2, intermediate_size=2 * hidden, max_position_embeddings=64,
    )
    BertModel(config).eval().save_pretrained(folder)
    make_tokenizer(folder).save_pretrained(folder)
    return folder


def tiny_bart(folder: str | Path, seed: int = 0) -> Path:
    """Save a random BartForConditionalGeneration (d_model 16) with the tiny WordPiece tokenizer
    ([PAD] = 0 pads, [CLS] = 2 starts, [SEP] = 3 ends)."""
    import torch
    from transformers import BartConfig, BartForConditionalGeneration

    folder = Path(folder)
    torch.manual_seed(seed)
    config = BartConfig(
        vocab_size=len(SPECIAL) + len(WORDS), d_model=16, encoder_layers=1, decoder_layers=1,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
        decoder_ffn_dim=32, max_position_embeddings=64, pad_token_id=0, bos_token_id=2,
        eos_token_id=3, decoder_start_token_id=3, forced_eos_token_id=3,
    )
    BartForConditionalGeneration(config).eval().save_pretrained(folder)
    make_tokenizer(folder).save_pretrained(folder)
    return folder
