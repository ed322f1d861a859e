"""Model zoo speed (issue 3, item 6).

    .venv/bin/python -m benchmarks.bench_models [--quick] [--threads N]

1. A training step (forward, cross-entropy, backward, AdamW step) of each recurrent model built
   by `build_model` against the same `nn.Embedding` + `nn.RNN`/`nn.LSTM`/`nn.GRU` + `nn.Linear`
   stack called directly: same sizes, batch, threads and initial weights (goal ≤ 1.05×).
2. The transformer against a minimal hand-written causal transformer of the same size using
   `scaled_dot_product_attention` (goal ≤ 1.05×).
3. `trace` of a 256-token probe on a 2-layer, 512-unit LSTM (goal < 150 ms).

The machine is shared and noisy: workbench and reference steps alternate one at a time in
ABBA order, each repeat sums 2 x steps of each, and the ratio is the median of the per-repeat
ratios.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch import nn
from torch.nn import functional as F

from workbench.core.config.models import GruConfig, LstmConfig, RnnConfig, TransformerConfig
from workbench.core.models import build_model

VOCAB, BATCH, SEQ = 2000, 32, 64


class PlainRecurrent(nn.Module):
    """What one would write by hand: embedding -> fused RNN -> linear."""

    def __init__(self, cell: type, embedding: int, hidden: int, layers: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, embedding)
        self.rnn = cell(embedding, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, VOCAB)

    def forward(self, tokens):
        out, _ = self.rnn(self.embedding(tokens))
        return self.head(out)


class PlainBlock(nn.Module):
    def __init__(self, d: int, heads: int, d_ff: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ff1, self.ff2 = nn.Linear(d, d_ff), nn.Linear(d_ff, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, nh, T, hs)
        x = self.ln1(x + self.out(a.transpose(1, 2).reshape(b, t, d)))
        return self.ln2(x + self.ff2(F.relu(self.ff1(x))))


class PlainTransformer(nn.Module):
    """A minimal post-LN causal decoder with sinusoidal positions and a tied head."""

    def __init__(self, d: int, heads: int, layers: int, d_ff: int, context: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, d)
        pos = torch.arange(context).unsqueeze(1)
        angle = pos / torch.pow(10000.0, torch.arange(0, d, 2) / d)
        table = torch.zeros(context, d)
        table[:, 0::2], table[:, 1::2] = torch.sin(angle), torch.cos(angle)
        self.register_buffer("pe", table)
        self.blocks = nn.ModuleList(PlainBlock(d, heads, d_ff) for _ in range(layers))
        self.head = nn.Linear(d, VOCAB)
        self.head.weight = self.embedding.weight

    def forward(self, tokens):
        x = self.embedding(tokens) + self.pe[: tokens.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def _logits(output):
    return output[0] if isinstance(output, tuple) else output


def step_timer(model: nn.Module, tokens: torch.Tensor, targets: torch.Tensor):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def run(steps: int) -> float:
        start = time.perf_counter()
        for _ in range(steps):
            optimizer.zero_grad(set_to_none=True)
            logits = _logits(model(tokens))
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))
            loss.backward()
            optimizer.step()
        return time.perf_counter() - start

    return run


def compare(ours: nn.Module, plain: nn.Module, repeats: int, steps: int) -> dict:
    generator = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ + 1), generator=generator)
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    run_ours, run_plain = step_timer(ours, inputs, targets), step_timer(plain, inputs, targets)
    run_ours(2), run_plain(2)  # warm-up: allocator, AdamW state
    ratios, ours_ms, plain_ms = [], [], []
    for _ in range(repeats):
        # ABBA: a linear drift in the machine's load cancels out of each group's ratio
        a = b = 0.0
        for _ in range(steps):
            a += run_ours(1)
            b += run_plain(1) + run_plain(1)
            a += run_ours(1)
        ratios.append(a / b)
        ours_ms.append(a / (2 * steps) * 1000)
        plain_ms.append(b / (2 * steps) * 1000)
    return {"ours_ms": statistics.median(ours_ms), "plain_ms": statistics.median(plain_ms),
            "ratio": statistics.median(ratios)}


def recurrent_pair(config_type: type, cell: type, embedding: int, hidden: int, layers: int):
    torch.manual_seed(0)
    ours = build_model(config_type(vocab_size=VOCAB, embedding_size=embedding,
                                   hidden_size=hidden, num_layers=layers, dropout=0.0))
    plain = PlainRecurrent(cell, embedding, hidden, layers)
    plain.load_state_dict(ours.state_dict())  # same parameter names: identical weights
    return ours, plain


def transformer_pair(d: int, heads: int, layers: int, d_ff: int):
    torch.manual_seed(0)
    ours = build_model(TransformerConfig(vocab_size=VOCAB, d_model=d, num_heads=heads,
                                         num_layers=layers, d_ff=d_ff, context_length=SEQ,
                                         dropout=0.0))
    plain = PlainTransformer(d, heads, layers, d_ff, SEQ)
    return ours, plain


def bench_trace(repeats: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds of one trace. With one torch thread the CPU time is what
    the wall time would be on an idle machine; on this shared 2-core box the wall time also
    counts the minutes other processes hold the cores."""
    torch.manual_seed(0)
    model = build_model(LstmConfig(vocab_size=100, embedding_size=64, hidden_size=512,
                                   num_layers=2))
    probe = torch.randint(0, 100, (256,))
    model.trace(probe)  # warm-up
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        model.trace(probe)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads for both sides (1: least noise on a shared machine)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    repeats, steps = (5, 2) if args.quick else (15, 3)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s), batch {BATCH} x "
          f"{SEQ} tokens, vocabulary {VOCAB}, {repeats} repeats of {steps} steps\n")
    print(f"{'model':44} {'workbench':>11} {'plain':>11} {'ratio':>7}  goal")
    cases = [
        ("Elman RNN 128/256 x2", lambda: recurrent_pair(RnnConfig, nn.RNN, 128, 256, 2)),
        ("LSTM 128/256 x2", lambda: recurrent_pair(LstmConfig, nn.LSTM, 128, 256, 2)),
        ("GRU 128/256 x2", lambda: recurrent_pair(GruConfig, nn.GRU, 128, 256, 2)),
        ("Transformer d128 h4 x2 ff512 (SDPA)", lambda: transformer_pair(128, 4, 2, 512)),
    ]
    for name, make in cases:
        ours, plain = make()
        result = compare(ours, plain, repeats, steps)
        verdict = "ok" if result["ratio"] <= 1.05 else "MISSED"
        print(f"{name:44} {result['ours_ms']:9.1f}ms {result['plain_ms']:9.1f}ms "
              f"{result['ratio']:6.3f}x  ≤ 1.05 {verdict}")
    trace_ms, trace_cpu_ms = bench_trace(repeats)
    verdict = "ok" if trace_ms < 150 else ("ok on CPU time (busy machine)"
                                           if trace_cpu_ms < 150 else "MISSED")
    print(f"\ntrace of a 256-token probe, LSTM 2 x 512: {trace_ms:.1f} ms wall, "
          f"{trace_cpu_ms:.1f} ms CPU (goal < 150 ms) {verdict}")

if __name__ == "__main__":
    main()
