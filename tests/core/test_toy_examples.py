"""Toy mode reproduces the course's worked examples at the precision they are printed with
(SEEDS.md section 3), and refuses unreadable input with a message naming it."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.worked.examples import EXAMPLES, compute, example, matches_printed
from workbench.core.worked.parse import InputError, parse_matrix


def run(key: str, **texts):
    return compute(example(key), texts)


@pytest.mark.parametrize("item", EXAMPLES, ids=[e.key for e in EXAMPLES])
def test_every_example_reproduces_its_printed_result_with_the_defaults(item):
    result = compute(item, {})
    assert matches_printed(item, result)
    assert result.lines and item.source


def test_softmax_of_1_3_2_and_its_argmax():
    result = run("softmax")
    assert np.array_equal(np.round(result.values["result"], 4), [0.0900, 0.6652, 0.2447])
    assert np.array_equal(result.values["argmax"], [0, 1, 0])
    hot = run("softmax", t="0.5").values["result"]
    assert hot[1] > 0.6652  # a lower temperature sharpens
    assert not matches_printed(example("softmax"), run("softmax", z="1 2 3"))


def test_the_lookup_picks_a_column_and_names_the_row_reading():
    result = run("lookup")
    assert np.array_equal(np.round(result.values["result"], 8),
                          [0.21831979, 0.22703532, 0.91580261])
    assert "column 3" in result.note and "0.12386669" in result.note
    assert np.array_equal(run("cbow").values["result"], [10, 12, 19])


def test_the_lookup_prints_the_x_it_multiplied():
    """Lesson 1, step 3: x = [0.5, 0.5, 0] printed as [0, 0, 0] beside a non-zero result."""
    result = run("lookup", x="0.5 0.5 0")
    shown = next(line for line in result.lines if line.label == "input")
    assert shown.working == "[0.5000, 0.5000, 0]"
    assert "not one-hot" in result.note


def test_layer_norm_of_1_2_3_4():
    result = run("layernorm")
    assert result.values["mean"] == 2.5 and round(result.values["sigma"], 4) == 1.1180
    with_eps = run("layernorm", eps="0.00001").values["result"]
    assert not np.array_equal(with_eps, result.values["result"])


def test_positional_encoding_at_d_4():
    table = run("positions").values["result"]
    assert np.array_equal(np.round(table[3], 4), [0.1411, -0.9900, 0.0300, 0.9996])
    wide = run("positions", d="20", n="50")
    assert wide.values["result"].shape == (50, 20)
    # the course's figure: the first dimensions as curves against position, from the table
    curves = wide.figure.curves
    assert [c.label for c in curves[:2]] == ["dim 0 (sin, i = 0)", "dim 1 (cos, i = 0)"]
    assert len(curves) == 6 and list(curves[0].x[::10]) == list(range(50))
    for k, curve in enumerate(curves):  # through the table's values at whole positions
        assert np.allclose(curve.y[::10], wide.values["result"][:, k])


def test_activation_functions_and_their_derivatives():
    """σ′(0) = 1/4 is the steepest a sigmoid gets; ReLU′ is 1 (not more) for x > 0; the
    curves are the functions the lines evaluate, the derivatives dashed in their colours."""
    at_zero = run("activations")
    assert at_zero.values["sigmoid"] == 0.5 and at_zero.values["sigmoid′"] == 0.25
    assert at_zero.values["tanh′"] == 1.0
    at_two = run("activations", x="2", leak="0.2", alpha="0.5")
    assert at_two.values["ReLU′"] == 1.0 and at_two.values["Leaky ReLU"] == 2.0
    below = run("activations", x="-2", leak="0.2", alpha="0.5")
    assert below.values["ReLU"] == 0.0 and below.values["ReLU′"] == 0.0
    assert below.values["Leaky ReLU"] == pytest.approx(-0.4)
    assert below.values["ELU"] == pytest.approx(0.5 * (np.exp(-2) - 1))
    assert below.values["ELU′"] == pytest.approx(0.5 * np.exp(-2))
    curves = {c.label: c for c in at_zero.figure.curves}
    sigmoid, slope = curves["sigmoid"], curves["sigmoid′"]
    assert slope.dashed and slope.colour_of == "sigmoid" and not sigmoid.dashed
    assert slope.y.max() == pytest.approx(0.25, abs=1e-4)  # at x = 0 of the grid
    numeric = np.gradient(sigmoid.y, sigmoid.x)  # the dashed curve is the function's slope
    assert np.allclose(numeric[1:-1], slope.y[1:-1], atol=1e-3)
    with pytest.raises(ValueError, match="from < to"):
        run("activations", low="3", high="1")


def test_the_hello_matrix_is_row_stochastic_not_column_stochastic():
    result = run("attention-matrix")
    assert np.allclose(result.values["columns"], [1.15, 1.0, 1.0, 0.85])
    assert "row-stochastic" in result.note
    assert np.allclose(result.values["outputs"], parse_matrix(example("attention-matrix")
                                                              .inputs[0].default))


def test_masked_attention_first_row_attends_only_to_itself():
    weights = run("masked").values["weights"]
    assert np.array_equal(weights[0], [1, 0, 0, 0, 0])
    assert np.all(weights[np.triu_indices(5, 1)] == 0)
    assert np.allclose(weights.sum(axis=1), 1)
    open_weights = run("masked", causal="no").values["weights"]
    assert open_weights[0, 1:].sum() > 0


def test_word2vec_window_pairs():
    pairs = run("window").values["result"]
    assert pairs == [("juice", "have"), ("juice", "orange"), ("juice", "and"),
                     ("juice", "eggs")]
    cbow = run("window", sentence="I have failed at times but i never stopped trying",
               centre="failed")
    assert [b for _, b in cbow.values["result"]] == ["I", "have", "at", "times"]
    fox = run("window", sentence="The quick brown fox jumped over the lazy dog", centre="fox")
    assert [b for _, b in fox.values["result"]] == ["quick", "brown", "jumped", "over"]


@pytest.mark.parametrize("texts, message", [
    ({"z": "1 three 2"}, "logits z, row 1: 'three' is not a number"),
    ({"z": ""}, "logits z is empty"),
])
def test_unreadable_input_names_what_is_wrong(texts, message):
    with pytest.raises(InputError, match=message):
        run("softmax", **texts)


def test_shapes_that_do_not_fit_are_refused():
    with pytest.raises(InputError, match="rows have different lengths"):
        parse_matrix("1 2\n3")
    with pytest.raises(ValueError, match="M has 3 columns but x has 2"):
        run("lookup", x="0 1")
    with pytest.raises(ValueError, match="d must be even"):
        run("positions", d="3")


def test_padding_and_masks_use_the_tasks_own_padding():
    """The worked example pads with the function the encoder tasks' batches use, and its masks
    keep every padded position out of the attention and the loss (issue 33)."""
    from workbench.core.tasks import sequences
    from workbench.core.worked import padding

    assert sequences.pad is padding.pad  # one padding for the tasks and the example
    worked = run("padding", text="a b c\nd\ne f", row="2", causal="yes")
    ids, key_mask = worked.values["result"], worked.values["key_mask"]
    assert ids.shape == (3, 3) and list(key_mask.sum(axis=1)) == [3, 1, 2]
    assert (ids[~key_mask] == 0).all()  # <pad> is id 0
    attention = worked.values["attention_mask"]  # row 2 ("d"): only its first key is real
    assert np.isneginf(attention[:, 1:]).all() and (attention[:, 0] == 0).all()
    assert (worked.values["targets"][~key_mask] == -100).all()
    encoder = run("padding", text="a b c\nd", row="1").values["attention_mask"]
    assert not np.isneginf(encoder).any()  # the longest row, no causal mask: nothing hidden
    with pytest.raises(ValueError, match="Row 4 is not one of the 3"):
        run("padding", text="a b\nc\nd", row="4")


def test_one_hot_says_nothing_of_similarity_dense_vectors_do():
    worked = run("one-hot")
    assert matches_printed(example("one-hot"), worked)  # hotel · motel = hotel · cat = 0
    cosines = worked.values["cosines"]
    assert cosines[0, 1] > 0.9 and cosines[0, 2] < 0.1
    assert "closest pair is 'hotel' and 'motel'" in worked.note
    with pytest.raises(ValueError, match="3 words need 3 dense rows"):
        run("one-hot", dense="1 0\n0 1")


def test_pooling_last_mean_and_max():
    worked = run("pooling", states="1 -2\n3 0\n-1 4")
    assert list(worked.values["last"]) == [-1, 4]
    assert np.allclose(worked.values["result"], [1, 2 / 3])
    assert list(worked.values["max"]) == [3, 4]


def test_the_word2vec_window_slides_over_the_sentence():
    worked = run("window", sentence="a b c d", centre="b", m="1")
    slides = worked.lines[-1].working.splitlines()
    assert slides == ["[a] (b) c d", "(a) [b] (c) d", "a (b) [c] (d)", "a b (c) [d]"]


def test_bert_input_frames_a_pair_masks_with_the_tasks_corruption_and_sums_three_tables():
    """Figure 38 of the course: [CLS] A [SEP] B [SEP] with segments 0 then 1, the masked-LM
    task's own 80/10/10 corruption on the ordinary tokens only, and LayerNorm of the sum of
    token, segment and position vectors (issue 33)."""
    from workbench.core.tasks import masked_lm
    from workbench.core.worked import bert_input

    assert masked_lm.corrupt is bert_input.corrupt  # one corruption for the task and the example
    worked = run("bert-input", a="The man went to the store", b="he bought milk", seed="3")
    tokens, segments = worked.values["tokens"], worked.values["segments"]
    assert tokens == ["[CLS]", "the", "man", "went", "to", "the", "store", "[SEP]", "he",
                      "bought", "milk", "[SEP]"]
    assert list(segments) == [0] * 8 + [1] * 4
    targets = worked.values["targets"]
    chosen = targets != -100
    assert chosen.any()
    assert not chosen[[0, 7, 11]].any()  # [CLS] and [SEP] are never chosen
    framed = worked.lines[0].value
    assert (targets[chosen] == framed[chosen]).all()  # the original token is the target
    assert (worked.values["inputs"][~chosen] == framed[~chosen]).all()  # the rest read as is
    token, segment, position = (line.value for line in worked.lines[6:9])
    summed = token + segment + position
    expected = (summed - summed.mean(1, keepdims=True)) / summed.std(1, keepdims=True)
    np.testing.assert_allclose(worked.values["result"], expected, atol=1e-9)
    assert (segment[0] == segment[7]).all() and not (segment[0] == segment[8]).all()
    assert worked.lines[5].working == "IsNext"
    assert run("bert-input", next="no").lines[5].working == "NotNext"
    with pytest.raises(ValueError, match="Type both sentences"):
        run("bert-input", b="  ")
