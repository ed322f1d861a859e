"""The Tokenizer tab names the bytes of BPE pieces that are not whole characters."""

from __future__ import annotations

from types import SimpleNamespace

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus.dataset import tokenize_job
from workbench.core.jobs import JobControl, drive
from workbench.qt.panels.corpus.tokenizer_view import TokenizerView

TEXT = "naïve café — ‘quoted’ and plain words\n" * 20


def bpe_tokens(vocab_size: int):
    corpus = SimpleNamespace(name="accents", text=TEXT)
    config = TokenizerConfig(kind="bpe", bpe_vocab_size=vocab_size)
    *_, finished = drive(tokenize_job(corpus, config), JobControl())
    return finished.result


def vocabulary_column(view: TokenizerView) -> list[str]:
    return [view.vocabulary.item(row, 1).text() for row in range(view.vocabulary.rowCount())]


def test_vocabulary_and_sample_show_byte_pieces_in_hex(qtbot):
    view = TokenizerView()
    qtbot.addWidget(view)
    view.show_tokens(bpe_tokens(260), TEXT)  # no merges: every piece is one byte
    shown = vocabulary_column(view)
    assert not any("\ufffd" in text for text in shown)
    assert {"<0xE2>", "<0x80>", "<0x94>", "<0xC3>"} <= set(shown)
    assert "<0xC3>│\u200b<0xA9>" in view.sample.text()  # the é of café, byte by byte
    assert "\ufffd" not in view.sample.text()


def test_whole_characters_still_read_as_text(qtbot):
    view = TokenizerView()
    qtbot.addWidget(view)
    view.show_tokens(bpe_tokens(400), TEXT)
    shown = vocabulary_column(view)
    assert any("é" in text for text in shown)
    assert not any("\ufffd" in text for text in shown)
