"""Tiny Hugging Face model folders the tests build themselves with `transformers` and
`tokenizers` (random weights, 2 layers): nothing is downloaded."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TEXT = ["the cat sat on the mat. " * 40, "But soft, what light through yonder window breaks? "
        "It is the east, and Juliet is the sun. " * 5]


def gpt2_tokenizer_json() -> str:
    """A byte-level BPE shaped like GPT-2's: its pieces first, <|endoftext|> last."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=320, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(TEXT, trainer=trainer)
    tokenizer.add_special_tokens(["<|endoftext|>"])
    return tokenizer.to_str()


def make_gpt2_folder(folder: Path, safetensors: bool = True, seed: int = 0, **options) -> Path:
    """A 2-layer GPT-2 of width 32 saved as `save_pretrained` saves it, with its tokenizer."""
    import torch
    from tokenizers import Tokenizer
    from transformers import GPT2Config, GPT2LMHeadModel

    text = gpt2_tokenizer_json()
    size = Tokenizer.from_str(text).get_vocab_size()
    eos = size - 1
    settings = dict(vocab_size=size, n_positions=64, n_embd=32, n_layer=2, n_head=4,
                    bos_token_id=eos, eos_token_id=eos)
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(GPT2Config(**{**settings, **options}))
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    if not safetensors:  # the older format, as GPT-2's own repository still holds it
        torch.save(model.state_dict(), folder / "pytorch_model.bin")
        (folder / "model.safetensors").unlink()
    (folder / "tokenizer.json").write_text(text, encoding="utf-8")
    return folder


def reference_gpt2(folder: Path):
    """The folder as `transformers` opens it, with eager attention (weights returned)."""
    from transformers import GPT2LMHeadModel

    return GPT2LMHeadModel.from_pretrained(folder, local_files_only=True,
                                           attn_implementation="eager").eval()


def bert_tokenizer_json() -> str:
    """A WordPiece vocabulary shaped like BERT's: lower-cased, its specials first, "##" pieces,
    and the post-processor that frames a text as [CLS] text [SEP]."""
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )

    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(vocab_size=120, show_progress=False, special_tokens=[
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    tokenizer.train_from_iterator(TEXT, trainer=trainer)
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tokenizer.to_str()


def make_bert_folder(folder: Path, safetensors: bool = True, seed: int = 0,
                     pretraining: bool = False, **options) -> Path:
    """A 2-layer BertForMaskedLM of width 32 (4 heads, FFN 37) saved as `save_pretrained`
    saves it, with its tokenizer (`pretraining`: a BertForPreTraining, with the pooler and the
    next-sentence head). Every weight is moved off its initial value (LayerNorms start at 1
    and 0, the segment table and the output bias at 0 otherwise): a tensor read into the
    wrong place then changes the numbers."""
    import torch
    from tokenizers import Tokenizer
    from transformers import BertConfig, BertForMaskedLM, BertForPreTraining

    text = bert_tokenizer_json()
    settings = dict(vocab_size=Tokenizer.from_str(text).get_vocab_size(), hidden_size=32,
                    num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
                    max_position_embeddings=64)
    torch.manual_seed(seed)
    kind = BertForPreTraining if pretraining else BertForMaskedLM
    model = kind(BertConfig(**{**settings, **options}))
    with torch.no_grad():
        for parameter in model.parameters():  # each tied tensor once
            parameter.add_(torch.randn_like(parameter) * 0.1)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    if not safetensors:
        torch.save(model.state_dict(), folder / "pytorch_model.bin")
        (folder / "model.safetensors").unlink()
    (folder / "tokenizer.json").write_text(text, encoding="utf-8")
    return folder


def reference_bert(folder: Path):
    """The folder as `transformers` opens it, with eager attention (weights returned)."""
    from transformers import BertForMaskedLM

    return BertForMaskedLM.from_pretrained(folder, local_files_only=True,
                                           attn_implementation="eager").eval()


def reference_bert_pretraining(folder: Path):
    """A BertForPreTraining folder as `transformers` opens it (MLM and NSP logits)."""
    from transformers import BertForPreTraining

    return BertForPreTraining.from_pretrained(folder, local_files_only=True,
                                              attn_implementation="eager").eval()


def llama_tokenizer_json() -> str:
    """A SentencePiece-style BPE shaped like TinyLlama's: <unk>, <s>, </s> first, then one piece
    per byte (<0x00> … <0xFF>, the fallback for a character with no piece of its own), then the
    learned pieces, which write a space as "▁"; its post-processor starts a text with <s>."""
    from tokenizers import (
        AddedToken,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )

    learner = Tokenizer(models.BPE())
    learner.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    learner.train_from_iterator(TEXT, trainer=trainers.BpeTrainer(vocab_size=120,
                                                                   show_progress=False))
    learned = json.loads(learner.to_str())["model"]
    specials = ["<unk>", "<s>", "</s>"]
    pieces = specials + [f"<0x{b:02X}>" for b in range(256)]
    pieces += sorted((p for p in learned["vocab"] if p not in pieces), key=learned["vocab"].get)
    tokenizer = Tokenizer(models.BPE(vocab={p: i for i, p in enumerate(pieces)},
                                     merges=[tuple(m) if isinstance(m, list) else
                                             tuple(m.split(" ")) for m in learned["merges"]],
                                     unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tokenizer.normalizer = normalizers.Sequence([normalizers.Prepend("▁"),
                                                 normalizers.Replace(" ", "▁")])
    tokenizer.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(),
                                           decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    tokenizer.add_special_tokens([AddedToken(t, normalized=False, special=True)
                                  for t in specials])
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", 1)])
    return tokenizer.to_str()


def make_llama_folder(folder: Path, seed: int = 0, **options) -> Path:
    """A 2-layer LlamaForCausalLM of width 32 (4 heads sharing 2 key/value heads, SwiGLU of
    48) saved as `save_pretrained` saves it, with its tokenizer. Every weight is moved off its
    initial value (the RMSNorms start at 1): a tensor read into the wrong place then changes
    the numbers."""
    import torch
    from tokenizers import Tokenizer
    from transformers import LlamaConfig, LlamaForCausalLM

    text = llama_tokenizer_json()
    settings = dict(vocab_size=Tokenizer.from_str(text).get_vocab_size(), hidden_size=32,
                    num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                    intermediate_size=48, max_position_embeddings=64, bos_token_id=1,
                    eos_token_id=2, rms_norm_eps=1e-5, tie_word_embeddings=False)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(LlamaConfig(**{**settings, **options}))
    with torch.no_grad():
        for parameter in model.parameters():  # each tied tensor once
            parameter.add_(torch.randn_like(parameter) * 0.1)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    (folder / "tokenizer.json").write_text(text, encoding="utf-8")
    return folder


def reference_llama(folder: Path):
    """The folder as `transformers` opens it, with eager attention (weights returned)."""
    from transformers import LlamaForCausalLM

    return LlamaForCausalLM.from_pretrained(folder, local_files_only=True,
                                            attn_implementation="eager").eval()
