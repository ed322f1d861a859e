"""Measured peak memory of one training step against activation_budget's estimate.

Each case runs in its own process (so peaks do not mix): build the model, take one AdamW step
(so the optimizer state exists), note the resident memory, then run one more forward and
backward and read the process's peak (`resource.getrusage(...).ru_maxrss`, the kernel's high
water mark). The step's growth over the resident memory before it is what the activation
estimate predicts; the script prints both and their ratio (measured / estimated).

    PYTHONPATH=. python benchmarks/bench_activation_memory.py
"""

from __future__ import annotations

import json
import subprocess
import sys

CASES = [
    {"arch": "transformer", "d_model": 64, "num_heads": 4, "num_layers": 2, "d_ff": 256,
     "context_length": 512, "vocab_size": 65, "batch": 16, "seq": 512},
    {"arch": "transformer", "d_model": 128, "num_heads": 4, "num_layers": 2, "d_ff": 512,
     "context_length": 256, "vocab_size": 65, "batch": 32, "seq": 256},
    {"arch": "lstm", "hidden_size": 512, "embedding_size": 64, "num_layers": 2,
     "vocab_size": 65, "batch": 64, "seq": 256},
    {"arch": "gru", "hidden_size": 1024, "embedding_size": 64, "num_layers": 1,
     "vocab_size": 65, "batch": 64, "seq": 256},
]

CHILD = """
import json, resource, sys, torch
from workbench.core.config.models import config_from_dict
from workbench.core.models.registry import build_model
from workbench.core.training.activation_budget import activation_bytes, dims_of
torch.set_num_threads(1)
case = json.loads(sys.argv[1])
batch, seq = case.pop("batch"), case.pop("seq")
config = config_from_dict(case)
model = build_model(config)
optimizer = torch.optim.AdamW(model.parameters())
tokens = torch.randint(0, config.vocab_size, (batch, seq))
def step():
    logits, _ = model(tokens)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                             tokens.reshape(-1))
    optimizer.zero_grad(set_to_none=False)
    loss.backward()
    optimizer.step()
    del logits, loss
small = tokens
tokens = tokens[:1, :8]
step()  # gradients and optimizer state allocated, activations of a tiny step only
tokens = small
import gc; gc.collect()
before = int(open("/proc/self/statm").read().split()[1]) * resource.getpagesize()
step()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
estimate = activation_bytes(dims_of(config), batch, seq)
print(json.dumps({"measured": peak - before, "estimate": estimate}))
"""


def main() -> None:
    for case in CASES:
        out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(case)],
                             capture_output=True, text=True, check=True)
        result = json.loads(out.stdout.strip().splitlines()[-1])
        name = f"{case['arch']} {case.get('d_model') or case.get('hidden_size')} " \
               f"b{case['batch']}×s{case['seq']}"
        print(f"{name:28s} measured {result['measured'] / 2**20:8.1f} MiB  estimated "
              f"{result['estimate'] / 2**20:8.1f} MiB  ratio "
              f"{result['measured'] / result['estimate']:.2f}")


if __name__ == "__main__":
    main()
