"""Step time of the trainer against a plain PyTorch loop of the same model, for each encoder
preset (bench_encoder_tasks --speed).

The trainer's step is the task's batch (padding, the tags or the masked-LM corruption drawn that
step), the task's loss, backward, clip, AdamW, the divergence guard's bookkeeping and the
events. The plain loop takes the same batches pre-built, then forward, cross-entropy, backward,
clip and AdamW. Its model: for the recurrent presets, the model as anyone would write it
(embedding, packed nn.LSTM, max pooling or a per-token linear layer), so the workbench's model
code is timed too; for the transformer presets, a fresh copy of the workbench's own model (the
same class and weights: an independently written transformer would time a different
architecture, not the trainer's overhead). Trainer and plain loop alternate, and the ratio is
the median over the repeats, of wall-clock and of CPU time (one thread: on a shared, loaded
machine the CPU time the process itself spent moves much less than the wall clock).
"""

from __future__ import annotations

import dataclasses
import statistics
import time

PRESETS = ("sentiment-bilstm", "sentiment-transformer", "upos-bilstm", "mlm-shakespeare")
WARM = 10  # steps left out of the timing at the start of each run


def plain_recurrent(config, per_token: bool):
    """The BiLSTM classifier (max pooling) or tagger as anyone would write it."""
    from torch import nn
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    encoder = config.encoder_config()
    outputs = config.num_tags if per_token else config.num_labels

    class Plain(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(encoder.vocab_size, encoder.embedding_size)
            self.drop = nn.Dropout(encoder.dropout)
            self.rnn = nn.LSTM(encoder.embedding_size, encoder.hidden_size,
                               encoder.num_layers, batch_first=True,
                               bidirectional=encoder.bidirectional,
                               dropout=encoder.dropout if encoder.num_layers > 1 else 0.0)
            self.out = nn.Linear(encoder.hidden_size * (2 if encoder.bidirectional else 1),
                                 outputs)

        def forward(self, tokens, mask):
            lengths = mask.sum(1).cpu()
            packed = pack_padded_sequence(self.drop(self.embed(tokens)), lengths,
                                          batch_first=True, enforce_sorted=False)
            states, _ = pad_packed_sequence(self.rnn(packed)[0], batch_first=True,
                                            total_length=tokens.shape[1])
            if per_token:
                return self.out(states)
            return self.out(states.masked_fill(~mask.unsqueeze(-1), float("-inf")).amax(1))

    return Plain()


def plain_model(trainer):
    """The plain loop's model for a trained preset (see the module's docstring)."""
    import torch

    torch.manual_seed(trainer.config.seed)
    config = trainer.model.config
    if config.arch in ("sequence_classifier", "token_tagger") and \
            config.encoder.get("arch") == "lstm":
        return plain_recurrent(config, per_token=config.arch == "token_tagger")
    return trainer.hooks.build(config)


def plain_loss(model, batch):
    """The task's cross-entropy, written out: a label per sentence, a tag per word (padding
    ignored), or the masked-LM's chosen tokens only."""
    import torch
    import torch.nn.functional as F

    from workbench.core.tasks import IGNORE_INDEX

    arrays = {k: torch.from_numpy(v) for k, v in batch.arrays.items()}
    tokens, mask = arrays["tokens"], arrays["mask"]
    if "labels" in arrays:
        return F.cross_entropy(model(tokens, mask), arrays["labels"])
    if "tags" in arrays:
        logits = model(tokens, mask)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), arrays["tags"].reshape(-1),
                               ignore_index=IGNORE_INDEX)
    chosen = arrays["targets"] != IGNORE_INDEX
    return F.cross_entropy(model(tokens, mask, where=chosen), arrays["targets"][chosen])


def plain_seconds_per_step(trainer, steps: int) -> tuple[float, float]:
    """(wall, CPU) seconds per step of the plain loop after the first WARM steps."""
    import torch

    training = trainer.config
    batches = [trainer.task.batch(step) for step in range(steps)]
    model = plain_model(trainer)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=training.lr,
                                  weight_decay=training.weight_decay)
    for step, batch in enumerate(batches):
        if step == WARM:
            start = clocks()
        loss = plain_loss(model, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), training.grad_clip)
        optimizer.step()
    return per_step(start, clocks(), steps)


def trainer_seconds_per_step(trainer, steps: int) -> tuple[float, float]:
    """(wall, CPU) seconds per step of the trainer from its step WARM to its last step (the
    events between are logged every WARM steps; the final validation comes after)."""
    from workbench.core.events import StepLogged

    marks = {}
    for event in trainer.run():
        if isinstance(event, StepLogged) and event.step in (WARM, steps):
            marks[event.step] = clocks()
    return per_step(marks[WARM], marks[steps], steps)


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def per_step(start, end, steps: int) -> tuple[float, float]:
    return ((end[0] - start[0]) / (steps - WARM), (end[1] - start[1]) / (steps - WARM))


def speed(load, steps: int, repeats: int, presets=PRESETS) -> None:
    """`load(name, **training)`: a preset recipe with one thread and the given settings."""
    import torch

    from workbench.core.jobs import JobControl, run_to_end
    from workbench.core.training_loop.recipe_run import task_data_steps
    from workbench.core.training_loop.trainer import Trainer, TrainRequest

    torch.set_num_threads(1)
    for name in presets:
        recipe = load(name, max_steps=steps, eval_every=10 ** 6, sample_every=0,
                      checkpoint_every=10 ** 6, log_every=WARM, warmup_steps=min(WARM, steps - 1))
        data = run_to_end(task_data_steps(recipe, JobControl()))
        ours, plain = [], []
        for _ in range(repeats):
            trainer = Trainer(TrainRequest(data, recipe.model, dataclasses.replace(
                recipe.training), run_name=recipe.name, task=recipe.task, gui=False))
            ours.append(trainer_seconds_per_step(trainer, steps))
            plain.append(plain_seconds_per_step(trainer, steps))
            print(f"  {name} repeat: trainer {ours[-1][0] * 1000:.1f} ms/step "
                  f"({ours[-1][1] * 1000:.1f} ms CPU), plain {plain[-1][0] * 1000:.1f} ms/step "
                  f"({plain[-1][1] * 1000:.1f} ms CPU)", flush=True)
        for which, clock in (("wall", 0), ("CPU", 1)):
            a, b = [o[clock] for o in ours], [p[clock] for p in plain]
            ratios = [x / y for x, y in zip(a, b, strict=True)]
            print(f"{name} step time ({which}), median of {repeats}: trainer "
                  f"{statistics.median(a) * 1000:.1f} ms, plain loop "
                  f"{statistics.median(b) * 1000:.1f} ms, ratio "
                  f"{statistics.median(a) / statistics.median(b):.3f} (median of per-repeat "
                  f"ratios {statistics.median(ratios):.3f})", flush=True)
