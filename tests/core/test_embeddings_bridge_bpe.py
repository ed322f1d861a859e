"""Word vectors initialise a BPE model's embedding rows for its whole-word tokens.

The BPE tokenizer shows a token as the text it stands for, so a word after a space reads
" king": the bridge must look up "king", or nearly every word of a BPE vocabulary is reported
missing (before the fix only the two words that began a line were found)."""

from __future__ import annotations

import numpy as np

from workbench.core.corpus.tokenizers import BpeTokenizer
from workbench.core.embeddings.bridge import embedding_init
from workbench.core.embeddings.vectors import WordVectors

WORDS = ["the", "king", "queen", "and", "went", "to", "castle", "with", "prince"]


def test_space_prefixed_bpe_words_take_their_vectors():
    text = "the king and the queen went to the castle with the prince\n" * 50
    tokenizer = BpeTokenizer.train([text], vocab_size=300)
    rng = np.random.default_rng(0)
    vectors = WordVectors(WORDS, rng.normal(size=(len(WORDS), 4)).astype("f4"))
    init = embedding_init(vectors, tokenizer, freeze=True)
    found = {token.strip() for token in init.found}
    assert set(WORDS) <= found
    king = next(i for i in range(tokenizer.vocab_size) if tokenizer.token(i) == " king")
    np.testing.assert_array_equal(init.matrix[king], vectors.vector("king"))
    assert init.freeze and init.matrix.shape == (tokenizer.vocab_size, 4)
    # sub-word pieces and punctuation stay missing and are listed for the user
    assert all(token.strip() not in WORDS for token in init.missing)
