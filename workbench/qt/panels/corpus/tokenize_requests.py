"""Tokenize requests where the newest one wins.

A corpus that just loaded starts tokenizing at once; a lesson step or a click on Tokenize a
moment later asks again with other settings. Refusing the second ("still running") left a
student with the wrong tokens and an error they had not caused, so a newer request cancels
the tokenizing this panel started and runs when it has stopped. A job of another kind
(training, embeddings) is never cancelled: the controller refuses as usual and says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.events import JobStopped, failure_text


class TokenizeRequests:
    """Starts tokenize jobs for a panel; `show` receives the line to show the user."""

    def __init__(self, controller: Any, show: Callable[[str], None]) -> None:
        self.controller = controller
        self.show = show
        self._running = False  # a tokenize job of ours is in the job runner
        self._next: tuple[Any, TokenizerConfig] | None = None  # asked for while it ran

    @property
    def pending(self) -> bool:
        return self._next is not None

    def request(self, corpus: Any, config: TokenizerConfig) -> bool:
        """Tokenize `corpus` with `config`, replacing a tokenization of ours still running."""
        jobs = self.controller.jobs
        if self._running and jobs.busy:
            self._next = (corpus, config)
            self.show(f"Tokenizing ({config.kind}) once the last request has stopped…")
            jobs.cancel()
            return True
        self._next = None
        self.show(f"Tokenizing ({config.kind})…")
        backend = self.controller.backend.corpus
        self._running = self.controller.run_job(backend.tokenize_job(corpus, config),
                                                on_result=self._finished,
                                                on_error=self._stopped)
        return self._running

    def _finished(self, tokens: Any) -> None:
        self._running = False
        if not self._start_next():  # a result for settings nobody wants any more is dropped
            self.controller.set_tokens(tokens)

    def _stopped(self, outcome: JobStopped) -> None:
        self._running = False
        if not self._start_next():
            self.show(f"Not tokenized: {failure_text(outcome) or 'cancelled'}")

    def _start_next(self) -> bool:
        if self._next is None:
            return False
        corpus, config = self._next
        self.request(corpus, config)
        return True
