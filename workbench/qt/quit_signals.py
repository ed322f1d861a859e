"""SIGTERM (logout, `kill`, a scheduler), SIGHUP and Ctrl-C in a terminal close the window the
way its close button does: a running training job stops after its step and saves its latest
checkpoint, instead of the process dying with up to a checkpoint interval of work lost.

Python runs signal handlers only between bytecodes, and Qt's event loop runs in C++: the
interpreter's wake-up file descriptor is watched by a QSocketNotifier, so the loop returns to
Python as soon as a signal arrives.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable

from PySide6.QtCore import QSocketNotifier, QTimer
from PySide6.QtWidgets import QWidget

SIGNALS = ("SIGTERM", "SIGHUP", "SIGINT")


def close_on_signals(window: QWidget) -> Callable[[], None]:
    """Install the handlers; returns the function that puts the previous ones back."""
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    try:
        previous_fd = signal.set_wakeup_fd(writer.fileno())
    except ValueError:  # not the main thread: leave signals as they are
        reader.close()
        writer.close()
        return lambda: None
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, window)
    notifier.activated.connect(lambda *_: _drain(reader))

    def handler(signum, frame) -> None:
        QTimer.singleShot(0, window, window.close)

    previous = {}
    for name in SIGNALS:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) != signal.SIG_IGN:
            previous[number] = signal.signal(number, handler)

    def restore() -> None:
        for number, old in previous.items():
            signal.signal(number, old)
        signal.set_wakeup_fd(previous_fd)
        notifier.setEnabled(False)
        reader.close()
        writer.close()

    return restore


def _drain(reader: socket.socket) -> None:
    try:
        while reader.recv(64):
            pass
    except OSError:
        pass
