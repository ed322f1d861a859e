"""Seq2seq scoring done properly (issue 29, item 6): every target of a source is a reference,
sacrebleu agrees on constructed cases, and word outputs come back spaced as they were split."""

from __future__ import annotations

import pytest
import sacrebleu

from workbench.core.config.tokenizer import DEFAULT_WORD_PATTERN
from workbench.core.corpus.detokenize import Detokenizer, learn_spacing, text_decoder
from workbench.core.corpus.tokenizers import CharTokenizer, WordTokenizer
from workbench.core.metrics.seq2seq import exact_matches, references_of, text_scores

FRENCH = ["Faites-le.", "Qui es-tu ?", "C'est amusant.", "C'est marrant.", "Va-t'en !",
          "Il a dit « non ».", "Je l'ai vu, hier.", "Où est-il ?", "(Bon) appétit !",
          "Prends-en deux."]
ENGLISH = ["Do it.", "Who are you?", "That's fun.", "It's 5:30, isn't it?",
           "He said (twice): \"no\".", "Well - maybe."]


def test_references_gather_every_target_of_a_source_in_file_order():
    pairs = [("That's fun.", "C'est amusant."), ("Go.", "Va !"),
             ("That's fun.", "C'est marrant."), ("That's fun.", "C'est amusant.")]
    assert references_of(pairs, ["That's fun.", "Go.", "Unknown."]) == [
        ["C'est amusant.", "C'est marrant."], ["Va !"], []]


def test_exact_match_counts_any_reference():
    refs = [[[5, 6, 7], [5, 8]], [[9]], [[1, 2]]]
    assert exact_matches([[5, 8], [9, 9], [1, 2]], refs) == [True, False, True]


def test_multi_reference_bleu_and_chrf_equal_sacrebleu():
    outputs = ["C'est marrant.", "Le chat dort sur le tapis.", "Va-t'en !"]
    references = [["C'est amusant.", "C'est marrant."], ["Le chat est sur le tapis."],
                  ["Pars !", "Va-t'en !", "Allez-vous-en !"]]
    scores = text_scores(outputs, references)
    streams = [["C'est amusant.", "Le chat est sur le tapis.", "Pars !"],
               ["C'est marrant.", None, "Va-t'en !"], [None, None, "Allez-vous-en !"]]
    assert scores.bleu == pytest.approx(sacrebleu.corpus_bleu(outputs, streams).score)
    assert scores.chrf == pytest.approx(sacrebleu.corpus_chrf(outputs, streams).score)
    # a second reference can only help: scored against the first ones alone it is lower
    single = text_scores(outputs, [r[:1] for r in references])
    assert single.bleu < scores.bleu and single.chrf < scores.chrf
    perfect = text_scores(["Le chat dort sur le tapis."],
                          [["Le chat est sur le tapis.", "Le chat dort sur le tapis."]])
    assert perfect.bleu == pytest.approx(100.0) and perfect.chrf == pytest.approx(100.0)


def _round_trip(texts: list[str], shown: list[str]) -> list[str]:
    tokenizer = WordTokenizer.train(texts, DEFAULT_WORD_PATTERN)
    decode = text_decoder(tokenizer, learn_spacing(tokenizer, texts))
    return [decode(tokenizer.encode(t)) for t in shown]


@pytest.mark.parametrize("texts", [FRENCH, ENGLISH])
def test_word_tokens_come_back_as_they_were_written(texts):
    assert _round_trip(texts, texts) == texts


def test_spacing_is_learnt_per_language_not_guessed():
    # French spaces before "?" and "!", English does not; the hyphen joins in both
    assert _round_trip(FRENCH, ["Où es-tu ?", "Faites-le !"]) == ["Où es-tu ?", "Faites-le !"]
    assert _round_trip(ENGLISH, ["Who are you?"]) == ["Who are you?"]
    tokenizer = WordTokenizer.train(FRENCH, DEFAULT_WORD_PATTERN)
    assert tokenizer.decode(tokenizer.encode("Faites-le.")) == "Faites - le."  # the old way


def test_an_unseen_token_is_spaced_by_the_tokenizers_rule():
    tokenizer = WordTokenizer.train(["a b ; c", "d , e"], DEFAULT_WORD_PATTERN)
    decode = text_decoder(tokenizer, learn_spacing(tokenizer, ["a b ; c"]))
    assert decode(tokenizer.encode("a , b")) == "a, b"  # "," never seen in the learnt text
    assert decode(tokenizer.encode("a ; b")) == "a ; b"  # ";" was spaced where it was seen


def test_spacing_survives_the_vocabulary_and_other_tokenizers_decode_as_before():
    learnt = Detokenizer.learn(DEFAULT_WORD_PATTERN, FRENCH)
    assert Detokenizer.from_dict(learnt.to_dict()) == learnt
    chars = CharTokenizer.train(["abc d"])
    assert learn_spacing(chars, ["abc d"]) is None
    assert text_decoder(chars, None)(chars.encode("ab d")) == "ab d"
    words = WordTokenizer.train(FRENCH, DEFAULT_WORD_PATTERN)
    assert text_decoder(words, None)(words.encode("Faites-le.")) == "Faites - le."  # old runs
