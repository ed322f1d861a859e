"""word2vec whose training loss is exact with several worker threads.

gensim's Cython batch functions read `model.running_training_loss` when a job starts, add the
job's pair losses to it in a float32 without the GIL, and write it back when the job ends. Two
workers running jobs at once both start from the same total, and the later write discards the
other's sum: with 2 workers on the shipped Shakespeare the reported epoch loss came out about
half of the one-worker value (674k and 663k against 1,284k), and it jumped up and down between
epochs with the thread timing.

`ExactLossWord2Vec` hands each job a stand-in for the model that forwards every attribute to it
but keeps its own loss total starting at zero, then adds that job's total to the model's under
a lock in a Python float (float64). Training itself is untouched: the same Cython functions
update the same weights, so vectors and speed are gensim's own.
"""

from __future__ import annotations

import threading

from gensim.models import Word2Vec
from gensim.models.word2vec_inner import train_batch_cbow, train_batch_sg

_LOSS_LOCK = threading.Lock()  # module level: a lock attribute would stop model.save()


class _JobModel:
    """The model as one job sees it: shared weights and settings, a private loss total."""

    # gensim reads model.wv twice per token: a slot, not a __getattr__ call, keeps the job at
    # gensim's speed (forwarding wv too made training 1.5x slower)
    __slots__ = ("_model", "running_training_loss", "wv", "random")

    def __init__(self, model: Word2Vec) -> None:
        self._model = model
        self.running_training_loss = 0.0
        self.wv = model.wv
        self.random = model.random

    def __getattr__(self, name: str):
        return getattr(self._model, name)


class ExactLossWord2Vec(Word2Vec):
    """gensim Word2Vec; `get_latest_training_loss()` sums every job of the last `train()`."""

    def _do_train_job(self, sentences, alpha, inits):
        work, neu1 = inits
        job = _JobModel(self)
        if self.sg:
            tally = train_batch_sg(job, sentences, alpha, work, self.compute_loss)
        else:
            tally = train_batch_cbow(job, sentences, alpha, work, neu1, self.compute_loss)
        if self.compute_loss:
            with _LOSS_LOCK:
                self.running_training_loss += float(job.running_training_loss)
        return tally, self._raw_word_count(sentences)
