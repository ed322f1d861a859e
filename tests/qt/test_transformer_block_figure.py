"""The transformer block figure follows the model's settings (issue 33 figure 35): the residual
arrows skip each sublayer, LayerNorm stands after each ⊕ (post-LN) or before each sublayer on
its branch (pre-LN), a translator's decoder block adds cross-attention, and other models show
none."""

from __future__ import annotations

from workbench.core.config.models import LstmConfig, TransformerConfig
from workbench.core.config.seq2seq import TransformerSeq2seqConfig
from workbench.qt.widgets.model_summary_view import block_of
from workbench.qt.widgets.transformer_block_figure import TransformerBlockFigure, block_parts


def kinds(parts):
    return [part.kind for part in parts]


def test_post_and_pre_ln_put_the_norms_where_the_papers_do():
    post = block_parts(128, 4, 512, pre_norm=False, causal=True)
    assert kinds(post) == ["io", "attention", "add", "norm", "ffn", "add", "norm", "io"]
    pre = block_parts(128, 4, 512, pre_norm=True, causal=False)
    assert kinds(pre) == ["io", "norm", "attention", "add", "norm", "ffn", "add", "io"]
    # each skip leaves from the stream before its sublayer: pre-LN's norm is on the branch
    assert [p.residual_from for p in pre if p.kind == "add"] == [0, 3]
    assert [p.residual_from for p in post if p.kind == "add"] == [0, 3]
    assert "Masked multi-head attention\n4 heads × d_k = 32" in post[1].title
    assert pre[2].title.startswith("Multi-head")  # no mask: an encoder
    assert "128 → 512 → 128" in post[4].title


def test_each_model_gets_its_own_block_or_none(qtbot):
    parts, heading = block_of(TransformerSeq2seqConfig(decoder_layers=3))
    assert "cross" in kinds(parts) and "×3" in heading
    parts, heading = block_of(TransformerConfig(num_layers=2, norm_placement="pre"))
    assert "pre-LN" in heading and kinds(parts)[1] == "norm"
    assert block_of(LstmConfig()) == ([], "")
    figure = TransformerBlockFigure()
    qtbot.addWidget(figure)
    figure.show_block(*block_of(TransformerConfig()))
    assert figure.isVisibleTo(figure.parentWidget() or figure) and figure.scene().items()
    figure.show_block([], "")  # an LSTM: the figure goes
    assert figure.isHidden()


def test_the_multi_head_figure_follows_the_heads(qtbot):
    from workbench.qt.widgets.model_summary_view import heads_of
    from workbench.qt.widgets.multihead_figure import MultiHeadFigure

    figure = MultiHeadFigure()
    qtbot.addWidget(figure)
    assert heads_of(TransformerConfig(d_model=128, num_heads=8)) == (128, 8, True)
    assert heads_of(LstmConfig()) == (0, 0, False)
    figure.show_heads(128, 8, causal=True)
    assert figure.heads_drawn == 4 and not figure.isHidden()  # four drawn, four said
    texts = [item.toPlainText() for item in figure.scene().items()
             if hasattr(item, "toPlainText")]
    assert any("4 more heads" in t for t in texts) and any("d_k = 128 / 8 = 16" in t
                                                          for t in texts)
    figure.show_heads(0, 0, False)
    assert figure.isHidden()


def test_the_rnn_encoder_decoder_is_drawn_with_its_attention_or_its_bottleneck(qtbot):
    from workbench.core.config.seq2seq import RnnSeq2seqConfig
    from workbench.qt.widgets.model_summary_view import ModelSummaryView

    view = ModelSummaryView()
    qtbot.addWidget(view)
    figure = view.seq2seq

    def texts():
        return " ".join(item.toPlainText() for item in figure.scene().items()
                        if hasattr(item, "toPlainText"))

    figure.show_model(RnnSeq2seqConfig(attention="dot").attention)
    assert not figure.isHidden() and "c_i = Σ_j α_ij h_j" in texts() and "s_i^T h_j" in texts()
    figure.show_model("none")
    assert "bottleneck" in texts() and "c_i" not in texts()
    figure.show_model("")  # not an RNN encoder-decoder
    assert figure.isHidden()
