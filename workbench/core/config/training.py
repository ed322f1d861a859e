"""Training settings (torch-free): optimiser, schedule, batches, evaluation, device, logging.

The Training panel generates its form from these fields and recipes store them as a TOML table.
`problems()` returns readable messages for settings that cannot work (empty = valid).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from workbench.core.config.fields import from_dict, param, range_problems, to_dict

OPTIMIZERS = ("adamw", "sgd")
SCHEDULES = ("constant", "cosine", "step")
DEVICES = ("auto", "cpu", "cuda", "mps")


@dataclass
class TrainingConfig:
    optimizer: str = param("adamw", "Optimizer", "AdamW (adaptive, decoupled weight decay) or "
                           "SGD with momentum.", choices=OPTIMIZERS)
    lr: float = param(3e-3, "Learning rate", "Peak step size η of the optimizer.",
                      min=1e-6, max=10.0, step=1e-4)
    weight_decay: float = param(0.01, "Weight decay", "Decoupled L2 shrinkage per step "
                                "(AdamW) or L2 penalty (SGD).", min=0.0, max=1.0, step=0.01)
    momentum: float = param(0.9, "Momentum", "SGD only: share of the previous update kept.",
                            min=0.0, max=0.999, step=0.01)
    schedule: str = param("cosine", "Schedule", "constant: η throughout. cosine: linear warm-up "
                          "then cosine decay to 10% of η at the last step. step: multiply η by "
                          "gamma every 'step size' steps.", choices=SCHEDULES)
    warmup_steps: int = param(50, "Warm-up steps", "Steps of linear warm-up from 0 to η "
                              "(cosine and step schedules).", min=0, max=1_000_000)
    step_size: int = param(1000, "Step size", "Step schedule: steps between two decays.",
                           min=1, max=1_000_000, advanced=True)
    gamma: float = param(0.5, "Gamma", "Step schedule: factor applied at each decay.",
                         min=0.01, max=1.0, step=0.05, advanced=True)
    batch_size: int = param(32, "Batch size", "Sequences per step (B).", min=1, max=4096)
    seq_len: int = param(128, "Sequence length", "Tokens per window (T): the truncated-BPTT "
                         "window of a recurrent model, the block of a transformer (at most its "
                         "context length). Language models only: sequence-to-sequence batches "
                         "are as long as their longest pair.", min=2, max=8192, step=8)
    max_steps: int = param(2000, "Steps", "Optimisation steps to train for (with a time "
                           "budget: the most steps, whichever ends first).",
                           min=1, max=10_000_000, step=100)
    minutes: float = param(0.0, "Time budget (min)", "Minutes of training on this machine "
                           "(pauses not counted; validation counted): the cosine decay follows "
                           "the time spent, not the steps, and the run ends when the time is "
                           "spent. 0 = no budget: 'Steps' decides.",
                           min=0.0, max=100_000.0, step=1.0)
    eval_every: int = param(100, "Validate every", "Steps between validations.",
                            min=1, max=1_000_000)
    eval_batches: int = param(20, "Validation batches", "Windows of the validation split "
                              "averaged per validation (the same ones every time). A "
                              "sequence-to-sequence task validates on all its held-out pairs.",
                              min=1, max=10_000)
    patience: int = param(0, "Early-stopping patience", "Validations in a row without a new "
                          "best validation loss after which the run stops (the 'best' "
                          "checkpoint keeps the best model; 0 = never stop early).",
                          min=0, max=100_000)
    sample_every: int = param(200, "Sample every", "Steps between text samples (0 = never).",
                              min=0, max=1_000_000)
    sample_length: int = param(200, "Sample length", "Tokens generated per sample (a language "
                               "model; sequence to sequence decodes a few held-out inputs).",
                               min=1, max=10_000)
    grad_clip: float = param(1.0, "Gradient clip", "Largest gradient norm ‖g‖ before the "
                             "step; larger gradients are scaled down (0 = no clipping).",
                             min=0.0, max=1000.0, step=0.1)
    spike_factor: float = param(20.0, "Divergence spike factor", "A gradient norm this many "
                                "times its recent average counts as divergence: the step is "
                                "undone and η halved (0 = only NaN/inf losses).",
                                min=0.0, max=1e6, step=1.0, advanced=True)
    device: str = param("auto", "Device", "auto picks CUDA, then MPS, then the CPU.",
                        choices=DEVICES)
    bf16: bool = param(False, "bf16 autocast", "CUDA only: run matrix products in bfloat16.",
                       advanced=True)
    threads: int = param(0, "CPU threads", "torch threads for training (0 = all cores but one, "
                         "at least one: the window stays responsive, and so does a shared "
                         "machine under the headless CLI).",
                         min=0, max=256, advanced=True)
    seed: int = param(1234, "Seed", "Seeds weights, batches, dropout and samples: the same "
                      "seed gives the same curve on the same machine.", min=0, max=2**31 - 1)
    checkpoint_every: int = param(500, "Checkpoint every", "Steps between 'latest' "
                                  "checkpoints (also written at the end and on stop).",
                                  min=1, max=1_000_000, advanced=True)
    log_every: int = param(10, "Log every", "Steps between logged points on the curves.",
                           min=1, max=100_000, advanced=True)
    tensorboard: bool = param(False, "TensorBoard", "Also write the curves (loss, validation, "
                              "perplexity, accuracy, learning rate, gradient norm) as TensorBoard "
                              "event files in the run folder's tensorboard/ (needs the optional "
                              "extra: pip install \"sequence-workbench[tensorboard]\").")
    # LoRA (Hu et al. 2021) for a run that starts from a model folder: W x + (α/r) B A x on the
    # attention projections, only A and B trained (core/training/lora.py)
    lora_rank: int = param(0, "LoRA rank", "Fine-tuning a model folder: r of the low-rank "
                           "update (α/r) B A added to the attention projections; only A and "
                           "B train (needs the 'hf' extra's peft). 0: every weight trains.",
                           min=0, max=1024, advanced=True)
    lora_alpha: float = param(16.0, "LoRA alpha", "α: the update is scaled by α/r.",
                              min=0.0, max=1e4, step=1.0, advanced=True)
    lora_dropout: float = param(0.0, "LoRA dropout", "Dropout on the input of the LoRA "
                                "update (B A), not on the frozen W.", min=0.0, max=0.9,
                                step=0.05, advanced=True)
    lora_targets: str = param("qkv proj", "LoRA layers", "Names of the Linear layers LoRA "
                              "adapts: qkv (W_Q, W_K, W_V) and proj (W_O) of every block.",
                              advanced=True)

    def problems(self) -> list[str]:
        problems = range_problems(self)
        if self.lora_rank and importlib.util.find_spec("peft") is None:
            problems.append("LoRA is on, but peft is not installed: pip install "
                            "'sequence-workbench[hf]' (or peft), or set 'LoRA rank' to 0.")
        if self.lora_rank and not self.lora_targets.replace(",", " ").split():
            problems.append("LoRA needs the names of the layers it adapts (qkv proj).")
        if self.schedule == "cosine" and self.warmup_steps >= self.max_steps:
            problems.append(f"Warm-up steps ({self.warmup_steps}) must be fewer than the "
                            f"steps ({self.max_steps}).")
        if self.bf16 and self.device in ("cpu", "mps"):
            problems.append("bf16 autocast needs a CUDA device; turn it off or choose cuda.")
        if self.tensorboard and importlib.util.find_spec("tensorboard") is None:
            # said before a run folder is made (finding it imports nothing)
            problems.append("TensorBoard is on, but TensorBoard is not installed: pip install "
                            "\"sequence-workbench[tensorboard]\" (or tensorboard), or turn "
                            "it off.")
        return problems


def training_config_to_dict(config: TrainingConfig) -> dict:
    return to_dict(config)


def training_config_from_dict(data: dict) -> TrainingConfig:
    return from_dict(TrainingConfig, data)
