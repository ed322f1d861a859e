"""Tiny models that follow the SequenceModel protocol, and a tiny tokenized corpus, so the
trainer is tested without the model zoo (and fast)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch
from torch import nn

from workbench.core.config.fields import param
from workbench.core.corpus.dataset import TokenizedCorpus, split_ids
from workbench.core.corpus.tokenizers import CharTokenizer
from workbench.core.snapshot import Snapshot

TEXT = ("the cat sat on the mat. the dog sat on the log. " * 40
        + "a cat and a dog met on a mat by a log. " * 20)


@dataclass
class TinyConfig:
    arch = "tiny"
    vocab_size: int = 0
    hidden_size: int = param(24, "Hidden", "units", min=1, max=512)
    stateful: bool = True
    context_length: int = 0  # 0 = unlimited (stateful); stateless models read this many tokens

    def problems(self) -> list[str]:
        return []


class TinyGruLm(nn.Module):
    """A one-layer GRU language model: carries a state, so it trains on contiguous windows."""

    supports_state = True

    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, 16)
        self.rnn = nn.GRU(16, config.hidden_size, batch_first=True)
        self.out = nn.Linear(config.hidden_size, config.vocab_size)
        self.nan_at_call: int | None = None  # inject a NaN loss at this forward call
        self.calls = 0

    def init_state(self, batch_size: int):
        return torch.zeros(1, batch_size, self.config.hidden_size)

    def detach_state(self, state):
        return state.detach()

    def forward(self, tokens, state=None):
        self.calls += 1
        hidden, state = self.rnn(self.embed(tokens), state)
        logits = self.out(hidden)  # (B, T, V)
        if self.training and self.nan_at_call is not None and self.calls >= self.nan_at_call:
            logits = logits * float("nan")
        return logits, state


class TinyWindowLm(nn.Module):
    """A stateless model (a causal convolution over 3 tokens): trains on random blocks."""

    supports_state = False

    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.conv = nn.Conv1d(config.hidden_size, config.hidden_size, 3)
        self.out = nn.Linear(config.hidden_size, config.vocab_size)

    def init_state(self, batch_size: int):
        return None

    def detach_state(self, state):
        return None

    def forward(self, tokens, state=None):
        x = self.embed(tokens).transpose(1, 2)  # (B, H, T)
        x = torch.nn.functional.pad(x, (2, 0))
        hidden = torch.tanh(self.conv(x)).transpose(1, 2)  # (B, T, H)
        return self.out(hidden), None


def build_tiny(config: TinyConfig):
    return TinyGruLm(config) if config.stateful else TinyWindowLm(config)


def snapshot_tiny(model, tokenizer_dict, step, metrics, run_name):
    weights = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
    config = {"arch": "tiny", "vocab_size": model.config.vocab_size}
    return Snapshot(config, weights, tokenizer_dict, step, dict(metrics), run_name)


def tiny_tokens(text: str = TEXT) -> TokenizedCorpus:
    tokenizer = CharTokenizer.train(text)
    ids = np.asarray(tokenizer.encode(text), dtype=np.int64)
    train, val, test = split_ids(ids, 0.1, 0.0)
    return TokenizedCorpus(tokenizer, ids, train, val, test, corpus_name="tiny")


def tiny_config(**changes) -> TinyConfig:
    return replace(TinyConfig(), **changes)


def tiny_request(tmp_path, stateful: bool = True, run_dir=None, **training):
    """A TrainRequest for the tiny corpus and model with fast defaults (overridable)."""
    from workbench.core.config.training import TrainingConfig
    from workbench.core.training.evaluation import ModelHooks
    from workbench.core.training_loop.trainer import TrainRequest

    settings = dict(max_steps=40, batch_size=8, seq_len=24, eval_every=20, eval_batches=4,
                    log_every=5, sample_every=20, sample_length=20, warmup_steps=4, lr=1e-2,
                    checkpoint_every=20, threads=1)
    settings.update(training)
    return TrainRequest(tiny_tokens(), tiny_config(stateful=stateful, context_length=0 if
                                                   stateful else 16),
                        TrainingConfig(**settings), run_dir=run_dir,
                        run_name="tiny", hooks=ModelHooks(build_tiny, snapshot_tiny))


def events_of(request, control=None):
    from workbench.core.jobs import JobControl, drive
    from workbench.core.training_loop.trainer import train_job

    return list(drive(train_job(request), control or JobControl()))


def of_type(events, cls):
    return [e for e in events if isinstance(e, cls)]


def tiny_hooks_for_any_config():
    """Hooks that build the tiny GRU whatever architecture a recipe names (CLI tests run
    without the model zoo)."""
    from workbench.core.training.evaluation import ModelHooks

    def build(config):
        model = TinyGruLm(TinyConfig(vocab_size=config.vocab_size,
                                     hidden_size=getattr(config, "hidden_size", 16)))
        model.config = config
        return model

    return ModelHooks(build, snapshot_tiny)


def write_tiny_recipe(folder, max_steps=30):
    (folder / "tiny.txt").write_text(TEXT, encoding="utf-8")
    text = f"""name = "tiny"
seed = 3
[corpus]
path = "tiny.txt"
[tokenizer]
kind = "char"
val_fraction = 0.1
test_fraction = 0.0
[model]
arch = "gru"
hidden_size = 16
embedding_size = 16
[training]
max_steps = {max_steps}
batch_size = 8
seq_len = 24
eval_every = 10
eval_batches = 3
log_every = 5
sample_every = 15
sample_length = 10
warmup_steps = 2
lr = 0.01
checkpoint_every = 10
threads = 1
"""
    (folder / "tiny.toml").write_text(text, encoding="utf-8")
    return folder / "tiny.toml"


def register_tiny_architecture():
    """Register the tiny model as architecture 'tiny' (its config and builder), so a checkpoint
    of it opens through the real, schema-checked loader; returns the function that unregisters
    it (other tests list the registered architectures)."""
    from workbench.core.config.models import MODEL_CONFIGS
    from workbench.core.models import registry

    MODEL_CONFIGS["tiny"] = TinyConfig
    registry._BUILDERS["tiny"] = build_tiny

    def unregister() -> None:
        MODEL_CONFIGS.pop("tiny", None)
        registry._BUILDERS.pop("tiny", None)

    return unregister
