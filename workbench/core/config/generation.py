"""Generation settings (torch-free): what the generation console's form edits.

Decoding strategies beyond plain autoregressive sampling (temperature, top-k, top-p, beam search,
length penalty) are not in the course texts (SEEDS.md 2.8 D5); the tooltips cite where they
come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core.config.fields import param, range_problems

STRATEGIES = ("greedy", "sample", "top-k", "top-p", "beam")


@dataclass
class GenerationConfig:
    strategy: str = param("top-k", "Strategy", "greedy: always the most likely token (argmax); "
                          "sample: draw from softmax(z / T); top-k: draw among the k most likely; "
                          "top-p: draw from the smallest set whose probability reaches p "
                          "(nucleus); beam: keep the best `width` sequences. Sampling from the "
                          "softmax is SLP3 ch. 9 sec. 9.3; the others go beyond the course texts "
                          "(top-k: Fan et al. 2018; top-p: Holtzman et al. 2020).",
                          choices=STRATEGIES)
    max_tokens: int = param(200, "Max tokens", "Stop after this many new tokens.", min=1,
                            max=5000)
    temperature: float = param(1.0, "Temperature", "Divide the logits by T before softmax: "
                               "T < 1 sharpens, T > 1 flattens (compared with top-k and top-p "
                               "by Holtzman et al. 2020).", min=0.05, max=5.0, step=0.05)
    top_k: int = param(40, "Top k", "Sample among the k most likely tokens (Fan et al. 2018).",
                       min=1, max=100000)
    top_p: float = param(0.9, "Top p", "Smallest set of tokens whose probabilities sum to at "
                         "least p (nucleus sampling, Holtzman et al. 2020).", min=0.01,
                         max=1.0, step=0.01)
    beam_width: int = param(4, "Beam width", "Sequences kept at each step of beam search.",
                            min=1, max=64)
    length_penalty: float = param(1.0, "Length penalty", "Beam score = log P / length^α; "
                                  "α > 0 favours longer outputs, 0 = raw log probability.",
                                  min=0.0, max=3.0, step=0.1)
    stop_sequence: str = param("", "Stop at", "Stop when the generated text contains this "
                               "(empty: only the end token or the length limit stops).")
    seed: int = param(0, "Seed", "Random seed: the same seed, prompt and snapshot give the same "
                      "text.", min=0, max=2**31 - 1)

    def problems(self) -> list[str]:
        return range_problems(self)
