"""The probe the Alignment and Attention panels start from is one the model can read: its
task's example pair when the vocabularies cover it, else a pair of the model's own data."""

from __future__ import annotations

from workbench.app.seq2seq_backend import default_probe
from workbench.core.corpus.tokenizers import UNK, CharTokenizer, tokenizer_from_dict
from workbench.core.data.generated import generate
from workbench.core.snapshot import Snapshot


def date_snapshot(length: int) -> Snapshot:
    pairs = generate("dates", 300, length, 0)
    vocabulary = {"source": CharTokenizer.train(s for s, _ in pairs).to_dict(),
                  "target": CharTokenizer.train(t for _, t in pairs).to_dict()}
    return Snapshot(model_config={"arch": "rnn_seq2seq"}, weights={}, tokenizer=vocabulary,
                    task={"name": "seq2seq", "data": "dates", "length": length, "data_seed": 0})


def test_a_numeric_date_model_is_probed_with_a_date_it_can_read():
    snapshot = date_snapshot(1)  # numeric formats only: no letters in the source vocabulary
    source, target = default_probe(snapshot).split(" → ")
    assert UNK not in tokenizer_from_dict(snapshot.tokenizer["source"]).encode(source)
    assert "Thursday" not in source and len(target) == len("2011-03-03")


def test_a_model_that_reads_month_names_keeps_the_tasks_example():
    assert default_probe(date_snapshot(3)) == "Thursday, March 3rd 2011 → 2011-03-03"
