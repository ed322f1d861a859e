"""Reading a run folder that another process is still writing, a little at a time.

`JsonlTail` remembers how far it has read a JSON-lines file and returns only the complete lines
added since. A last line still being written (no newline yet) waits for the next read. It also
notices a file that was rewritten rather than appended to (a resumed run cuts its log back to
its checkpoint's step; a run restarted in the same folder starts it again): the bytes just
before the place it stopped no longer match, so it reads again from the top and says so. A
sync tool that replaces the file by a longer copy of it (rsync writes a new file and renames
it) keeps those bytes, so that counts as growth, not as a rewrite.

`RunTail` tails `metrics.jsonl` and `samples.jsonl` of one run and parses the lines with the
same parsers as `runs.read_run`. Reads stop after `max_bytes`, so a large file arrives in
pieces the window can take one by one. Torch-free.

Only regular files are read (files/bounded.py: a FIFO named metrics.jsonl would block the
follow, beyond the reach of its Stop), and a line longer than MAX_LINE_BYTES is skipped as
damaged, counted once, without being gathered in memory: no logged event is that long, and a
200 MB line without a newline took a minute to gather before.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.events import Event, SampleGenerated
from workbench.core.files import bounded
from workbench.core.jobs import UserFacingError
from workbench.core.training.run_lines import parse_event_line, parse_sample_line

CHECK_BYTES = 256  # read before the resume point to tell growth from a rewrite
MAX_BYTES = 1 << 20  # per read: about 8,000 metrics lines
MAX_LINE_BYTES = 1 << 24  # a last line longer than this is not a logged event


@dataclass
class TailRead:
    lines: list[bytes] = field(default_factory=list)  # complete lines, newline removed
    restarted: bool = False  # the file was rewritten: these lines replace all read before
    more: bool = False  # the read stopped at its byte limit; read again at once
    skipped: int = 0  # lines longer than MAX_LINE_BYTES, passed over


class JsonlTail:
    def __init__(self, path: Path, max_bytes: int = MAX_BYTES) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.offset = 0  # bytes consumed: everything before it ended in a newline
        self._seen = b""  # the last CHECK_BYTES consumed
        self._skipping = False  # inside a line too long to be an event: pass to its end

    def read(self) -> TailRead:
        try:
            with bounded.open_regular(self.path) as handle:
                size = os.fstat(handle.fileno()).st_size
                restarted = self.offset > 0 and not self._continues(handle, size)
                if restarted:
                    self.offset, self._seen, self._skipping = 0, b"", False
                handle.seek(self.offset)
                skipped = self._skip_long_line(handle) if self._skipping else 0
                start = self.offset
                data = bytearray(handle.read(self.max_bytes))
                piece = data
                while piece and b"\n" not in piece and len(data) < size - start:
                    if len(data) > MAX_LINE_BYTES:  # no event is this long: skip the line
                        self._consume(bytes(data[-CHECK_BYTES:]), len(data))
                        self._skipping = True
                        skipped += self._skip_long_line(handle)
                        return TailRead(restarted=restarted, more=self.offset < size,
                                        skipped=skipped)
                    piece = handle.read(self.max_bytes)  # one line longer than a read
                    data += piece
        except FileNotFoundError:
            restarted = self.offset > 0  # the run's files were removed
            self.offset, self._seen, self._skipping = 0, b"", False
            return TailRead(restarted=restarted)
        except OSError as exc:  # a FIFO or device in the run's place, a read error
            raise UserFacingError(f"{self.path} cannot be read: {exc.strerror or exc}. "
                                  "Follow or open a run whose files are regular files."
                                  ) from None
        end = data.rfind(b"\n") + 1  # 0: no complete line yet
        complete = bytes(data[:end])
        self._consume(complete[-CHECK_BYTES:], end)
        lines = [line.rstrip(b"\r") for line in complete.split(b"\n")[:-1]]
        return TailRead(lines, restarted, more=start + len(data) < size, skipped=skipped)

    def _consume(self, last: bytes, count: int) -> None:
        self.offset += count
        self._seen = (self._seen + last)[-CHECK_BYTES:]

    def _skip_long_line(self, handle) -> int:
        """Pass over the rest of an overlong line, a piece at a time (the handle stands at
        `offset`); 1 when its end was reached (a skipped line to count), else 0."""
        while True:
            piece = handle.read(self.max_bytes)
            if not piece:
                return 0  # its end not written yet: go on skipping at the next read
            newline = piece.find(b"\n")
            if newline >= 0:
                self._consume(piece[:newline + 1][-CHECK_BYTES:], newline + 1)
                self._skipping = False
                return 1
            self._consume(piece[-CHECK_BYTES:], len(piece))

    def rest(self) -> bytes:
        """What follows the last complete line (a line still being written, or one a killed
        writer left without its newline); b"" when nothing does."""
        if self._skipping:
            return b""
        try:
            with bounded.open_regular(self.path) as handle:
                handle.seek(self.offset)
                return handle.read(MAX_LINE_BYTES)
        except OSError:
            return b""

    def _continues(self, handle, size: int) -> bool:
        """True when the bytes before `offset` are still those read there."""
        if size < self.offset:
            return False
        handle.seek(self.offset - len(self._seen))
        return handle.read(len(self._seen)) == self._seen


@dataclass
class RunChunk:
    events: list[Event] = field(default_factory=list)
    samples: list[SampleGenerated] = field(default_factory=list)
    skipped_lines: int = 0
    restarted: bool = False  # events and samples replace everything read before
    more: bool = False

    def __bool__(self) -> bool:
        return bool(self.events or self.samples or self.skipped_lines or self.restarted)


class RunTail:
    """The new events and samples of a run folder since the last `read`."""

    def __init__(self, run_dir: Path, max_bytes: int = MAX_BYTES) -> None:
        self.metrics = JsonlTail(Path(run_dir) / "metrics.jsonl", max_bytes)
        self.samples = JsonlTail(Path(run_dir) / "samples.jsonl", max_bytes)

    def read(self) -> RunChunk:
        metrics, samples = self.metrics.read(), self.samples.read()
        chunk = RunChunk(more=metrics.more or samples.more)
        if metrics.restarted != samples.restarted:
            # One file was rewritten (a resume rewrites both): start both again, so the curves
            # and the sample log never mix two versions of the run.
            self.metrics, self.samples = (JsonlTail(self.metrics.path, self.metrics.max_bytes),
                                          JsonlTail(self.samples.path, self.samples.max_bytes))
            metrics, samples = self.metrics.read(), self.samples.read()
            chunk.more = metrics.more or samples.more
            chunk.restarted = True
        chunk.restarted = chunk.restarted or metrics.restarted or samples.restarted
        chunk.skipped_lines += metrics.skipped + samples.skipped
        for line in metrics.lines:
            try:
                chunk.events.append(parse_event_line(line))
            except ValueError:
                chunk.skipped_lines += int(bool(line.strip()))
        for line in samples.lines:
            try:
                chunk.samples.append(parse_sample_line(line))
            except ValueError:
                chunk.skipped_lines += int(bool(line.strip()))
        return chunk
