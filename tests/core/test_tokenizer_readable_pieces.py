"""BPE pieces that hold only part of a character's UTF-8 bytes read as <0xE2> byte notation
in lists (vocabulary, coverage, alternatives), not as a bare replacement sign."""

from __future__ import annotations

import pytest

from workbench.core.corpus.tokenizers import (
    PAD,
    BpeTokenizer,
    CharTokenizer,
    readable_bytes,
)
from workbench.core.inspection.probes import display_text

TEXT = "naïve café — ‘quoted’\n"


@pytest.fixture(scope="module")
def byte_pieces() -> BpeTokenizer:
    # 260 ids = 4 specials + 256 bytes: no merges, so "—" is three one-byte pieces
    return BpeTokenizer.train([TEXT * 5], vocab_size=260)


def test_readable_bytes_keeps_whole_characters_and_names_stray_bytes():
    assert readable_bytes("café".encode()) == "café"
    assert readable_bytes("—".encode()[:2]) == "<0xE2><0x80>"
    assert readable_bytes(b"caf\xc3") == "caf<0xC3>"
    assert readable_bytes(b"\x94 x") == "<0x94> x"
    assert readable_bytes(b"") == ""


def test_pieces_of_a_dash_read_as_its_three_bytes(byte_pieces):
    pieces = [byte_pieces.readable_token(i) for i in byte_pieces.encode("—")]
    assert pieces == ["<0xE2>", "<0x80>", "<0x94>"]


def test_no_vocabulary_entry_reads_as_a_replacement_sign(byte_pieces):
    readable = [byte_pieces.readable_token(i) for i in range(byte_pieces.vocab_size)]
    assert not any("\ufffd" in text for text in readable)
    assert readable[PAD] == "<pad>"
    # whole pieces read exactly as the tokenizer decodes them
    for i, text in enumerate(readable[4:], start=4):
        if "\ufffd" not in byte_pieces.token(i):
            assert text == byte_pieces.token(i)


def test_piece_bytes_put_together_give_back_the_text(byte_pieces):
    merged = BpeTokenizer.train([TEXT * 50], vocab_size=300)
    for tokenizer in (byte_pieces, merged):
        ids = tokenizer.encode(TEXT)
        assert b"".join(tokenizer.token_bytes(i) for i in ids) == TEXT.encode()


def test_inspector_labels_show_stray_bytes_and_other_tokenizers_are_unchanged(byte_pieces):
    (first, *_) = byte_pieces.encode("—")
    assert display_text(byte_pieces, first) == "<0xE2>"
    chars = CharTokenizer.train(TEXT)
    assert [chars.readable_token(i) for i in chars.encode("é—")] == ["é", "—"]
