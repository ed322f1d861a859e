"""BERT's input for a pair of sentences and the two tasks it is pre-trained on (SEEDS T16, the
course's figure 38; Devlin et al. 2019, sec. 3 and fig. 2).

The pair is framed as [CLS] A [SEP] B [SEP]. Every position i gets three learned vectors, summed
and layer-normalised: x_i = LayerNorm(E_token[w_i] + E_segment[s_i] + E_position[i]), with
s_i = 0 up to the first [SEP] (sentence A) and 1 after it (sentence B). Masked LM: 15% of the
ordinary tokens are chosen, with the masked-LM task's own corruption (core/data/masking.py:
80% [MASK], 10% a random word, 10% kept), and only they are predicted. Next sentence
prediction: the [CLS] state is classified IsNext or NotNext; in training half the pairs are the
text's next sentence and half a random one. The three tables are seeded random numbers at a toy
width d (a trained BERT learns them, at d = 768).
"""

from __future__ import annotations

import numpy as np

from workbench.core.data.masking import IGNORE_INDEX, corrupt
from workbench.core.worked.records import Line, WorkedComputation, matrix

SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def _choice(token: str, shown: str, how: int) -> str:
    """One chosen token and what became of it: masked, swapped for a random word, or kept."""
    if how == 1:
        return f"{token} → [MASK]"
    if how == 2:
        return f"{token} → {shown} (a random word)"
    return f"{token} (chosen, kept)"


def bert_input_example(first: str, second: str, is_next: bool, d: int = 4,
                       seed: int = 1) -> WorkedComputation:
    a, b = first.lower().split(), second.lower().split()
    if not a or not b:
        raise ValueError("Type both sentences: BERT's input here is a pair, A and B.")
    words = sorted(set(a + b))
    ids = {w: i for i, w in enumerate([*SPECIAL, *words])}
    tokens = ["[CLS]", *a, "[SEP]", *b, "[SEP]"]
    token_ids = np.array([ids[t] for t in tokens])
    segments = np.array([0] * (len(a) + 2) + [1] * (len(b) + 1))
    positions = np.arange(len(tokens))
    ordinary = np.array([t not in SPECIAL for t in tokens])
    rng = np.random.default_rng(seed)
    corruption = corrupt(token_ids[None], ordinary[None], rng, ids["[MASK]"], len(SPECIAL),
                         len(ids))
    names = {i: w for w, i in ids.items()}
    shown = [names[int(i)] for i in corruption.inputs[0]]
    targets = corruption.targets[0]
    # the tables a trained BERT learns, seeded so the numbers stay put while the text changes
    tables = np.random.default_rng(seed + 1)
    e_token = tables.normal(0, 1, (len(ids), d))
    e_segment = tables.normal(0, 1, (2, d))
    e_position = tables.normal(0, 1, (len(tokens), d))
    summed = e_token[corruption.inputs[0]] + e_segment[segments] + e_position[positions]
    mean = summed.mean(axis=1, keepdims=True)
    x = (summed - mean) / np.sqrt(summed.var(axis=1, keepdims=True) + 1e-12)
    chosen = [_choice(tokens[i], shown[i], int(corruption.how[0, i]))
              for i in np.flatnonzero(corruption.chosen[0])]
    label = "IsNext" if is_next else "NotNext"
    lines = (
        Line("the pair, framed", "[CLS] A [SEP] B [SEP]", " ".join(tokens), token_ids),
        Line("segment s_i", "0 for A (with [CLS] and its [SEP]), 1 for B",
             " ".join(str(s) for s in segments), segments),
        Line("position i", "0, 1, …, n − 1", " ".join(str(i) for i in positions), positions),
        Line("masked-LM input", "15% of the ordinary tokens chosen: 80% [MASK], 10% a random "
             "word, 10% kept", " ".join(shown) + "\n" + "; ".join(chosen),
             corruption.inputs[0]),
        Line("masked-LM targets", f"the original token where chosen, {IGNORE_INDEX} (no loss) "
             "elsewhere", " ".join(names[int(t)] if t != IGNORE_INDEX else "·" for t in targets),
             targets),
        Line("next sentence label", "the [CLS] state classified: IsNext or NotNext", label,
             int(is_next)),
        Line("token embeddings", "E_token[w_i] (one row a position)",
             matrix(e_token[corruption.inputs[0]], 3), e_token[corruption.inputs[0]]),
        Line("segment embeddings", "E_segment[s_i]: two rows, A's and B's",
             matrix(e_segment, 3), e_segment[segments]),
        Line("position embeddings", "E_position[i]", matrix(e_position, 3), e_position),
        Line("input vectors", "x_i = LayerNorm(E_token[w_i] + E_segment[s_i] + E_position[i])",
             matrix(x, 3), x),
    )
    return WorkedComputation(
        f"BERT's input: {len(tokens)} positions, {label}", lines,
        "Devlin et al. 2019, sec. 3.1 and fig. 2; the course's seeds 002 and 003 (BERT: segment "
        "embeddings, MLM 15%, NSP 50/50); the masked-LM task's corruption",
        values={"result": x, "tokens": tokens, "segments": segments, "targets": targets,
                "inputs": corruption.inputs[0], "is_next": is_next},
        note="In pre-training, half the pairs are a sentence and the one after it (IsNext), "
             "half a sentence and a random one from elsewhere (NotNext). Change the seed to "
             "draw another masking; the app's masked-LM task masks its sentences the same way, "
             "and with 'Next-sentence prediction' on it reads such pairs, with a learned "
             "segment table and the IsNext / NotNext head on [CLS].")
